import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './support/test.ts';
import { openProfileMenu, storageState } from './support/fixtures.ts';

test.describe('signed in', () => {
  test.use({ storageState: storageState('app_admin') });

  test('/jump continues to a page of the application after the robot check', async ({ page }) => {
    await page.goto('/jump?to=%2Fstock%3Fonglet%3Dhistorique');
    await expect(page.getByText('/stock?onglet=historique')).toBeVisible();
    await page.getByRole('button', { name: 'Continuer' }).click();
    await expect(page.getByText('Cochez la case pour continuer')).toBeVisible();
    await page.getByLabel('Je ne suis pas un robot').check();
    await page.getByRole('button', { name: 'Continuer' }).click();
    await expect(page).toHaveURL(/\/stock\?onglet=historique$/);
  });

  for (const target of ['https://evil.example/', '//evil.example/x', 'javascript:alert(1)', '/\\evil.example']) {
    test(`/jump refuses ${target}`, async ({ page }) => {
      const response = await page.goto(`/jump?to=${encodeURIComponent(target)}`);
      expect(response?.status()).toBe(400);
      await expect(page.getByRole('alert').filter({ hasText: "Ce lien de redirection n'est pas valide" })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Continuer' })).toHaveCount(0);
    });
  }

  test('a cross-site form post is refused with a French page', async ({ page }) => {
    const response = await page.request.post('/sign-out', { headers: { origin: 'https://evil.example' } });
    expect(response.status()).toBe(403);
    expect(await response.text()).toContain('Requête refusée');
    await page.goto('/repair-orders');
    await expect(page).toHaveURL(/\/repair-orders$/);
  });

  test('the shell passes an axe scan with no serious violation', async ({ page }) => {
    await page.goto('/repair-orders');
    await openProfileMenu(page);
    const results = await new AxeBuilder({ page }).analyze();
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  });
});

test('the sign-in page passes an axe scan with no serious violation', async ({ page }) => {
  await page.goto('/sign-in');
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
});

test('every page carries the security headers, with no unsafe-inline script', async ({ page }) => {
  const response = await page.goto('/sign-in');
  const headers = response!.headers();
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('same-origin');
  const csp = headers['content-security-policy']!;
  expect(csp).toContain("frame-ancestors 'none'");
  const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src'))!;
  expect(scriptSrc).not.toContain('unsafe-inline');
});

test('a tampered, truncated or foreign cookie ends signed out, never a 500', async ({ page, context, baseURL }) => {
  for (const value of ['abc', 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..x.y.z', 'a'.repeat(4000)]) {
    await context.clearCookies();
    await context.addCookies([{ name: 'atelier_session', value, url: baseURL! }]);
    const response = await page.goto('/repair-orders');
    expect(response?.status()).toBe(200);
    await expect(page).toHaveURL(/\/sign-in/);
  }
});
