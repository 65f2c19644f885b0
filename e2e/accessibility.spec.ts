// Every main screen of every role passes axe with no serious or critical violation (issue 15),
// at the desk's 1280 px and the tablet's 768 px.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { mainScreens, openScreen, storageState, type RoleName } from './support/fixtures.ts';

for (const width of [1280, 768]) {
  for (const role of Object.keys(mainScreens) as RoleName[]) {
    test.describe(`${role} at ${width} px`, () => {
      test.use({ storageState: storageState(role), viewport: { width, height: 900 } });
      test('its main screens pass axe', async ({ page }) => {
        test.slow();
        for (const screen of mainScreens[role]) {
          await openScreen(page, screen);
          const { violations } = await new AxeBuilder({ page }).analyze();
          expect.soft(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), screen).toEqual([]);
        }
      });
    });
  }
}
