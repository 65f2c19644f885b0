// Proof before changing a way in (issue 29, decision 048): signed in by an e-mail link, a user
// who changes the address of their account is asked their current password in the same form,
// and the change goes through without retyping the rest; with JavaScript and without.
import type { Browser } from '@playwright/test';
import { DEMO_PASSWORD, lastMailTo, outboxMark, shot, verifyLinkOf } from './support/fixtures.ts';
import { expect, test } from './support/test.ts';

const EMAIL = 'commercial@demo.local';

async function signInByLink(browser: Browser, javaScriptEnabled: boolean, viewport = { width: 1280, height: 800 }, touch = false) {
  const context = await browser.newContext({ javaScriptEnabled, viewport, hasTouch: touch, isMobile: touch });
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByRole('link', { name: 'Recevoir un lien de connexion' }).click();
  await page.getByLabel('Adresse e-mail').fill(EMAIL);
  const mark = outboxMark();
  await page.getByRole('button', { name: 'Envoyer le lien' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'un lien de connexion vient de lui être envoyé' })).toBeVisible();
  await page.goto(verifyLinkOf(lastMailTo(EMAIL, mark)));
  // A touch screen folds the navigation into a menu: the profile's button says the sign-in.
  await expect(touch ? page.getByRole('button', { name: /Menu du profil/ }) : page.getByRole('navigation', { name: 'Navigation principale' })).toBeVisible();
  return { context, page };
}

for (const javaScriptEnabled of [true, false]) {
  test(`asks the current password in place before a new address (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async ({ browser }) => {
    const { context, page } = await signInByLink(browser, javaScriptEnabled);
    const shots = `profile-email-js-${javaScriptEnabled ? 'on' : 'off'}`;
    await page.goto('/profile');
    const form = page.getByRole('form', { name: "Modifier le nom et l'e-mail" });
    const address = `commercial.${javaScriptEnabled ? 'js' : 'nojs'}@demo.local`;
    await form.getByLabel('E-mail').fill(address);
    await form.getByRole('button', { name: 'Enregistrer' }).click();

    // Refused: the reason above the form, the password asked beside what was typed, kept.
    await expect(page.getByRole('alert').filter({ hasText: 'confirmez votre identité avec votre mot de passe actuel' })).toBeVisible();
    await expect(form.getByLabel('E-mail')).toHaveValue(address);
    await expect(form.getByLabel('Mot de passe actuel')).toBeVisible();
    await shot(page, `${shots}-asked`, true);

    await form.getByLabel('Mot de passe actuel').fill('pas-le-bon-mot');
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(form.getByText('Mot de passe actuel incorrect')).toBeVisible();
    await expect(form.getByLabel('E-mail')).toHaveValue(address);
    // A password typed is never kept (decision 039).
    await expect(form.getByLabel('Mot de passe actuel')).toHaveValue('');

    await form.getByLabel('Mot de passe actuel').fill(DEMO_PASSWORD);
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByRole('status').filter({ hasText: `Un lien de confirmation a été envoyé à ${address}` })).toBeVisible();
    await expect(form.getByLabel('Mot de passe actuel')).toHaveCount(0);
    await shot(page, `${shots}-done`, true);
    await context.close();
  });
}

test('asks it the same on a tablet', async ({ browser }) => {
  const { context, page } = await signInByLink(browser, true, { width: 768, height: 1024 }, true);
  await page.goto('/profile');
  const form = page.getByRole('form', { name: "Modifier le nom et l'e-mail" });
  await form.getByLabel('E-mail').fill('commercial.tablette@demo.local');
  await form.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(form.getByLabel('Mot de passe actuel')).toBeVisible();
  await shot(page, 'profile-email-tablet-asked');
  await context.close();
});

test('a token waits for the password too, asked in place', async ({ browser }) => {
  const { context, page } = await signInByLink(browser, false);
  // The tokens screen: the password in its own form; the name typed is kept.
  await page.goto('/profile/tokens');
  await expect(page.getByText('confirmez votre identité avec votre mot de passe actuel')).toBeVisible();
  await page.getByLabel('Nom du jeton').fill('Export comptable');
  await page.getByRole('button', { name: 'Créer le jeton' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'confirmez votre identité avec votre mot de passe actuel' })).toBeVisible();
  await expect(page.getByLabel('Nom du jeton')).toHaveValue('Export comptable');
  await page.getByRole('main').getByLabel('Mot de passe actuel').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Créer le jeton' }).click();
  await expect(page.getByLabel('Jeton', { exact: true })).toHaveValue(/\S{20,}/);

  await context.close();
});

// The security screen asks it in place too (issue 29 item 1): the authenticator app's set-up
// form carries the password field, says a wrong one at the field, and starts at once after it.
for (const javaScriptEnabled of [true, false]) {
  test(`the authenticator app's set-up asks the current password in place (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async ({ browser }) => {
    const { context, page } = await signInByLink(browser, javaScriptEnabled);
    const shots = `security-totp-js-${javaScriptEnabled ? 'on' : 'off'}`;
    await page.goto('/profile/security');
    const form = page.getByRole('form', { name: 'Configurer une application' });
    await expect(form.getByText('confirmez votre identité avec votre mot de passe actuel')).toBeVisible();
    await expect(form.getByLabel('Mot de passe actuel')).toBeVisible();
    await shot(page, `${shots}-asked`);

    await form.getByLabel('Mot de passe actuel').fill('pas-le-bon-mot');
    await form.getByRole('button', { name: 'Configurer une application' }).click();
    await expect(page).toHaveURL(/\/profile\/security$/);
    await expect(form.getByText('Mot de passe actuel incorrect')).toBeVisible();
    await expect(form.getByLabel('Mot de passe actuel')).toHaveValue('');
    await shot(page, `${shots}-wrong`);

    await form.getByLabel('Mot de passe actuel').fill(DEMO_PASSWORD);
    await form.getByRole('button', { name: 'Configurer une application' }).click();
    await expect(page).toHaveURL(/\/profile\/security$/);
    await expect(page.getByRole('img', { name: /QR/ })).toBeVisible();
    await page.getByRole('button', { name: 'Annuler' }).click();
    await context.close();
  });
}

test('the security screen asks it the same on a tablet', async ({ browser }) => {
  const { context, page } = await signInByLink(browser, true, { width: 768, height: 1024 }, true);
  await page.goto('/profile/security');
  const form = page.getByRole('form', { name: 'Configurer une application' });
  await expect(form.getByLabel('Mot de passe actuel')).toBeVisible();
  await shot(page, 'security-tablet-asked');
  await context.close();
});

test('a security key waits for the password in its own form, then the key can be added there', async ({ browser }) => {
  const { context, page } = await signInByLink(browser, true);
  await page.goto('/profile/security');
  const form = page.getByRole('form', { name: 'Ajouter une clé de sécurité' });
  await expect(form.getByText('confirmez votre identité avec votre mot de passe actuel')).toBeVisible();
  await form.getByLabel('Mot de passe actuel').fill('pas-le-bon-mot');
  await form.getByRole('button', { name: 'Confirmer' }).click();
  await expect(form.getByText('Mot de passe actuel incorrect')).toBeVisible();
  await shot(page, 'security-key-wrong');
  await form.getByLabel('Mot de passe actuel').fill(DEMO_PASSWORD);
  await form.getByRole('button', { name: 'Confirmer' }).click();
  await expect(page).toHaveURL(/\/profile\/security#cles-securite-titre$/);
  // Proved: the island's own form, the browser's key prompt one tap away; no password asked.
  await expect(form.getByRole('button', { name: 'Ajouter une clé de sécurité' })).toBeEnabled();
  await expect(page.getByRole('main').getByRole('textbox', { name: /Mot de passe actuel/ })).toHaveCount(0);
  await shot(page, 'security-key-proved');
  await context.close();
});

// The walk of 27 November (decision 064), on a tablet: a refused address is gone once «Annuler»
// was tapped; a token and the authenticator app's set-up are made once, whatever the reloads.
test('on a tablet, nothing refused comes back after «Annuler», and a reload makes no second token or secret', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 768, height: 1024 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByLabel('Adresse e-mail').fill('maxime.blanc@demo.local');
  await page.getByLabel('Mot de passe').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
  await expect(page).toHaveURL(/\/stock$|\/repair-orders$/);

  await page.goto('/profile?retour=%2Fstock');
  const form = page.getByRole('form', { name: "Modifier le nom et l'e-mail" });
  await form.getByLabel('E-mail').fill('admin@demo.local');
  await form.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(form.getByText('Email non disponible')).toBeVisible();
  await expect(form.getByLabel('E-mail')).toBeFocused();
  await shot(page, 'tablet-profile-email-taken', true);
  await form.getByRole('link', { name: 'Annuler' }).click();
  await expect(page).toHaveURL(/\/stock$/);
  await page.goto('/profile');
  await expect(form.getByLabel('E-mail')).toHaveValue('maxime.blanc@demo.local');
  await expect(page.getByText('Email non disponible')).toHaveCount(0);
  await shot(page, 'tablet-profile-after-annuler', true);

  await page.goto('/profile/tokens');
  await page.getByLabel('Nom du jeton').fill('Export tablette');
  await page.getByRole('button', { name: 'Créer le jeton' }).click();
  await expect(page).toHaveURL(/\/profile\/tokens$/);
  await expect(page.getByLabel('Jeton', { exact: true })).toHaveValue(/\S{20,}/);
  await shot(page, 'tablet-token-created', true);
  await page.reload();
  await expect(page.getByLabel('Jeton', { exact: true })).toHaveCount(0);
  await expect(page.getByRole('row', { name: /Export tablette/ })).toHaveCount(1);
  await shot(page, 'tablet-token-after-reload', true);

  await page.goto('/profile/security');
  await page.getByRole('button', { name: 'Configurer une application' }).click();
  const secret = page.locator('code');
  await expect(secret).toHaveText(/[A-Z2-7 ]{20,}/);
  const first = await secret.textContent();
  await page.reload();
  await expect(secret).toHaveText(first!);
  await page.getByRole('button', { name: 'Annuler' }).click();
  await expect(page.getByRole('button', { name: 'Configurer une application' })).toBeVisible();
  await expect(page.getByRole('img', { name: /QR/ })).toHaveCount(0);
  await shot(page, 'tablet-security-after-annuler', true);
  await context.close();
});
