// Signs each demo role in once through the sign-in page and keeps its session for the suite.
import { test as setup } from '@playwright/test';
import { accounts, roleNames, signIn, storageState } from './support/fixtures.ts';

for (const role of roleNames) {
  setup(`sign in as ${role}`, async ({ page }) => {
    await signIn(page, accounts[role].email);
    await page.context().storageState({ path: storageState(role) });
  });
}
