// Signing in with the workshop's identity provider (decision 029): a mechanic clicks the
// provider's button and comes back signed in; a refusal or an account still waiting for an
// admin reads in French on the sign-in page. The app runs here with a local OpenID provider
// (the tests' oidc-provider), on ports of its own.
import { type ChildProcess, spawn } from 'node:child_process';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './support/test.ts';
import { startOidcProvider, testClient, type TestProvider } from '../tests/support/oidc-provider.ts';
import { freePort } from '../tests/support/postgres-server.ts';

let idp: TestProvider;
let app: ChildProcess;
let appUrl: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const [appPort, idpPort] = [await freePort(), await freePort()];
  appUrl = `http://localhost:${appPort}`;
  const prefix = 'AUTH_PROVIDER_ATELIER_';
  app = spawn(process.execPath, ['e2e/support/serve.ts'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(appPort),
      HOST: '127.0.0.1',
      PUBLIC_URL: appUrl,
      DATA_DIR: 'test-results/e2e-providers-data',
      LOG_LEVEL: 'error',
      AUTH_RATE_LIMIT_FACTOR: '100',
      AUTH_PROVIDERS: 'atelier',
      [`${prefix}ISSUER`]: `http://127.0.0.1:${idpPort}`,
      [`${prefix}CLIENT_ID`]: testClient.id,
      [`${prefix}CLIENT_SECRET`]: testClient.secret,
      [`${prefix}LABEL`]: 'Google Workspace',
    },
  });
  idp = await startOidcProvider({ port: idpPort, redirectUris: [`${appUrl}/api/auth/signin/provider/atelier/callback`] });
  idp.accounts.set('karim', { sub: 'karim', email: 'mecanicien@demo.local', email_verified: true, name: 'Karim Benali' });
  idp.accounts.set('newcomer', { sub: 'newcomer', email: 'nouvelle@atelier.test', email_verified: true, name: 'Léa Nouvelle' });
  for (let attempt = 0; ; attempt++) {
    const ready = await fetch(`${appUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (attempt > 600) throw new Error('the app with a provider did not start');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

test.afterAll(async () => {
  await idp?.close();
  if (app?.pid) process.kill(app.pid);
});

test('a mechanic signs in with the workshop provider and lands where he was going', async ({ page }) => {
  idp.next = { account: 'karim' };
  await page.goto(`${appUrl}/gearboxes`);
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fgearboxes$/);
  const providers = page.getByRole('region', { name: "Connexion avec un fournisseur d'identité" });
  const button = providers.getByRole('link', { name: 'Se connecter avec Google Workspace' });
  await expect(button).toBeVisible();
  for (const [width, height] of [
    [1280, 800],
    [768, 1024],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: `test-results/screenshots/sign-in-providers-${width}.png`, fullPage: true });
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  }
  await button.click();
  await expect(page).toHaveURL(`${appUrl}/gearboxes`);
  await page.getByLabel('Menu du profil').first().click();
  await expect(page.getByRole('group', { name: 'Menu du profil' }).getByText('mecanicien@demo.local')).toBeVisible();
});

test('a refusal at the provider reads in French on the sign-in page', async ({ page }) => {
  idp.next = { error: 'access_denied' };
  await page.goto(`${appUrl}/sign-in`);
  await page.getByRole('link', { name: 'Se connecter avec Google Workspace' }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByRole('alert').filter({ hasText: "Le fournisseur d'identité a refusé la connexion." })).toBeVisible();
  await expect(page.getByLabel('Adresse e-mail')).toBeVisible();
});

test('a first sign-in of an unknown employee waits for an admin, and says so', async ({ page }) => {
  idp.next = { account: 'newcomer' };
  await page.goto(`${appUrl}/sign-in`);
  await page.getByRole('link', { name: 'Se connecter avec Google Workspace' }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByRole('alert').filter({ hasText: "Ce compte n'est pas (encore) actif : un administrateur doit l'activer." })).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/sign-in-providers-waiting.png', fullPage: true });
});

test('without JavaScript, the button is a plain link that works', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  idp.next = { account: 'karim' };
  await page.goto(`${appUrl}/sign-in`);
  await page.getByRole('link', { name: 'Se connecter avec Google Workspace' }).click();
  await expect(page).toHaveURL(`${appUrl}/repair-orders`);
  await context.close();
});
