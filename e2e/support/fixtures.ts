// Story-like helpers for the browser tests.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, expect, type Locator, type Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';

export const DEMO_PASSWORD = 'Demo-Atelier-2026!';

export const accounts = {
  app_admin: { email: 'admin@demo.local', name: 'Claire Dubois', label: 'Admin' },
  diagnostician: { email: 'diagnostic@demo.local', name: 'Julien Moreau', label: 'Diagnostiqueur' },
  mechanic: { email: 'mecanicien@demo.local', name: 'Karim Benali', label: 'Mécanicien' },
  commercial: { email: 'commercial@demo.local', name: 'Sophie Laurent', label: 'Commercial' },
} as const;
export type RoleName = keyof typeof accounts;
export const roleNames = Object.keys(accounts) as RoleName[];

export const storageState = (role: RoleName) => `test-results/.auth/${role}.json`;

/** A touch tablet's context options (768×1024 upright unless told), for `test.use` or a new context. */
export const touchTablet = (width = 768, height = 1024) => ({ viewport: { width, height }, hasTouch: true, isMobile: true });

/** A page on a touch tablet, signed in as `role`; `await page.context().close()` when done. */
export async function tabletPage(browser: Browser, role: RoleName, size: { width: number; height: number } = { width: 768, height: 1024 }) {
  const context = await browser.newContext({ storageState: storageState(role), ...touchTablet(size.width, size.height) });
  return context.newPage();
}

/** The sign-in's first step: the password given, whatever comes next (a second factor, a refusal). */
export async function givePassword(page: Page, email: string, password = DEMO_PASSWORD) {
  await page.goto('/sign-in');
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByLabel('Mot de passe').fill(password);
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
}

export async function signIn(page: Page, email: string, password = DEMO_PASSWORD) {
  await givePassword(page, email, password);
  await expect(page).toHaveURL(/\/repair-orders$/);
}

/** The authenticator app's code for `secret`, `steps` periods of 30 s from now. */
export const totpCodeOf = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });

/** Opens the profile menu, unless it is open already. */
export async function openProfileMenu(page: Page) {
  const group = page.getByRole('group', { name: 'Menu du profil' });
  if (!(await group.isVisible())) await page.getByLabel('Menu du profil').first().click();
  await expect(group).toBeVisible();
}

export async function signOut(page: Page) {
  await openProfileMenu(page);
  await page.getByRole('button', { name: 'Se déconnecter', exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
}

/**
 * A screenshot for the review, only when asked for (`SHOTS_DIR=/work/shots/x npx playwright test …`):
 * CI writes none. Full page unless `viewport` (a touch context's full page drops the touch).
 */
export async function shot(page: Page, name: string, viewport = false) {
  if (process.env.SHOTS_DIR) await page.screenshot({ path: `${process.env.SHOTS_DIR}/${name}.png`, fullPage: !viewport });
}

const outbox = path.join('test-results/e2e-data/outbox');

const outboxFiles = () => (existsSync(outbox) ? readdirSync(outbox).sort().reverse() : []);

/** Where the outbox stands now: `lastMailTo(address, mark)` then waits for a mail sent after it. */
export const outboxMark = (): string => outboxFiles()[0] ?? '';

/**
 * The last e-mail sent to an address (after `since`, a mark taken before the action that sends it),
 * decoded enough to read its link. The server's queue writes it a few milliseconds after the answer
 * (decision 049): one not there yet is waited for, 2 s. Without a mark, an older mail to the same
 * address (a change notice) can answer before the one asked for.
 */
export function lastMailTo(address: string, since = ''): string {
  const until = Date.now() + 2_000;
  for (;;) {
    for (const file of outboxFiles()) {
      if (file <= since) break;
      const raw = readFileSync(path.join(outbox, file), 'utf8');
      if (new RegExp(`^To: ${address.replace('.', '\\.')}$`, 'm').test(raw)) return raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    }
    if (Date.now() > until) throw new Error(`no mail to ${address}`);
    // A synchronous pause: callers read the mail as a value.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
}

export function verifyLinkOf(mail: string): string {
  const link = mail.match(/https?:\/\/\S+\/api\/auth\/verify\?[^\s"<]+/)?.[0];
  if (!link) throw new Error('no link in mail');
  return link.replace(/&amp;/g, '&');
}

/**
 * Opens an e-mail's link in `page`, confirming the account it names when asked (decision 052: a
 * link opens a session at once only in the browser that asked for it or one signed in as it).
 */
export async function openMailLink(page: Page, link: string, name: string) {
  await page.goto(link);
  // A browser that asked for this account's link lands signed in; any other confirms the account.
  if (!new URL(page.url()).searchParams.has('refreshToken')) return;
  await expect(page.getByRole('heading', { name: `Continuer en tant que ${name} ?` })).toBeVisible();
  await page.getByRole('button', { name: `Continuer en tant que ${name}` }).click();
}

/** The main screens of each role, as paths; ORDER stands for the demo order OR-2026-0601's page, MODEL for the ZF 6HP26 dossier. */
export const mainScreens: Record<RoleName, string[]> = {
  mechanic: [
    '/repair-orders',
    'ORDER',
    'ORDER?onglet=procedure',
    'ORDER?onglet=informations-techniques',
    '/gearboxes',
    'MODEL',
    'MODEL?onglet=pannes',
    'MODEL?onglet=documents',
  ],
  diagnostician: [
    'ORDER/diagnostic',
    'ORDER/diagnostic?onglet=mesures',
    'ORDER/diagnostic?onglet=courbes',
    'ORDER/diagnostic?etape=pannes',
    'ORDER/code-conditions',
    'ORDER/symptom-conditions',
    'MODEL?onglet=procedures',
    'MODEL?onglet=codes',
    '/symptoms-conditions-base',
    '/repair-order',
    '/add-stock',
    '/profile',
    // Issue 32: the workshop at a glance, no island.
    '/overview',
  ],
  commercial: ['/stock', '/stock?onglet=historique', '/stock?onglet=codes'],
  app_admin: ['/users', '/repair-orders?page=2', 'ORDER'],
};

/** Opens a screen of `mainScreens`: ORDER and MODEL found by their names first. */
export async function openScreen(page: Page, screen: string) {
  if (screen.startsWith('ORDER')) {
    await page.goto('/repair-orders?recherche=OR-2026-0601');
    const href = (await page.getByRole('link', { name: 'OR-2026-0601', exact: true }).getAttribute('href'))!;
    await page.goto(screen.replace('ORDER', href));
  } else if (screen.startsWith('MODEL')) {
    await page.goto('/gearboxes?recherche=6HP26');
    const href = (await page.getByRole('link', { name: 'ZF 6HP26', exact: true }).getAttribute('href'))!;
    await page.goto(screen.replace('MODEL', href));
  } else await page.goto(screen);
}

/**
 * Without JavaScript, taps a submit the server refuses (decision 039): its 303 leads to a GET that
 * answers 200. Gives the navigation POSTs from then on: a reload must add none.
 */
export async function refusedPost(page: Page, submit: Locator): Promise<string[]> {
  const posts: string[] = [];
  page.on('request', (request) => request.isNavigationRequest() && request.method() === 'POST' && posts.push(request.url()));
  const [refusal] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), submit.click()]);
  expect(refusal.status()).toBe(303);
  // The GET only shows the form again: 200 (the refusal was the POST's), nothing for the console.
  expect((await refusal.request().redirectedTo()!.response())!.status()).toBe(200);
  return posts;
}

/**
 * Decision 048: a change of a way in (the e-mail, a token…) asks the current password in its own
 * form once the sign-in is over five minutes old, or was not a password's. After `submit` was
 * clicked: gives the password if the form asks it, and submits again.
 */
export async function givePasswordIfAsked(form: Locator, submit = 'Enregistrer') {
  const page = form.page();
  const field = form.getByLabel('Mot de passe actuel');
  await expect(page.getByRole('status').filter({ hasText: /\S/ }).or(field).first()).toBeVisible();
  if (!(await field.isVisible())) return;
  await field.fill(DEMO_PASSWORD);
  await form.getByRole('button', { name: submit }).click();
}

/** An order's procedure tab, the checkpoints island hydrated (its saves replace the page's own buttons). */
export async function openProcedure(page: Page, number: string) {
  await page.goto(`/repair-orders?recherche=${number}`);
  await page.getByRole('link', { name: number, exact: true }).click();
  await page.getByRole('link', { name: 'Procédure de réparation' }).click();
  await expect(page.getByRole('heading', { name: 'Points de contrôle' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Enregistrer', exact: true })).toHaveCount(0);
}

/** An admin's page reopens the order (once: it may be open already). */
export async function reopenOrder(page: Page, number: string) {
  await openProcedure(page, number);
  const summary = page.getByText("Rouvrir l'OR", { exact: true });
  if (!(await summary.isVisible())) return;
  await summary.click();
  await page.getByLabel('Motif de la réouverture').fill('Contrôle complémentaire demandé');
  await page.getByRole('button', { name: 'Rouvrir', exact: true }).click();
  await expect(page.getByRole('button', { name: "Clôturer l'OR" })).toBeVisible();
}
