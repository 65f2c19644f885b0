// Security keys in Chromium, answered by its virtual authenticator (CDP WebAuthn domain): a
// mechanic adds a key from the account's security page, signs out, signs in with it; renames
// and deletes it; with the terminal's reader, proves it again for a step-up and signs in from the
// e-mail field's autofill. Romain and Hugo are colleagues no other spec uses.
import AxeBuilder from '@axe-core/playwright';
import { allowBrowserErrors, expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { shot, signIn, signOut } from './support/fixtures.ts';

/**
 * A key that knows its accounts and checks its owner (PIN or fingerprint): a USB key, or the
 * terminal's own reader ('internal'), which Chromium also offers in the e-mail field's autofill.
 */
async function plugSecurityKey(page: Page, transport: 'usb' | 'internal' = 'usb') {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport, hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
  return {
    credentials,
    /** The same key in another browser: a credential copied into this authenticator. */
    add: (credential: Awaited<ReturnType<typeof credentials>>[number]) => cdp.send('WebAuthn.addCredential', { authenticatorId, credential }),
  };
}

async function expectNoSeriousAxeViolation(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
}

/** The success toast, read then closed. */
async function seeToast(page: Page, message: string) {
  const toast = page.getByRole('status').locator('details').filter({ hasText: message });
  await expect(toast).toBeVisible();
  await toast.getByLabel('Fermer la notification').click();
  await expect(toast).toBeHidden();
}

const section = (page: Page) => page.getByRole('region', { name: 'Clés de sécurité' });

async function addKey(page: Page, name: string) {
  await page.goto('/profile/security');
  const keys = section(page);
  await keys.getByLabel('Nom de la clé').fill(name);
  await keys.getByRole('button', { name: 'Ajouter une clé de sécurité' }).click();
  await seeToast(page, 'Clé de sécurité ajoutée');
}

test('a mechanic adds a key, signs out, signs in with it, renames it and deletes it', async ({ page }) => {
  const key = await plugSecurityKey(page);
  await signIn(page, 'romain.andre@demo.local');
  await page.goto('/profile/security');
  const keys = section(page);
  await expect(keys.getByText('Aucune clé de sécurité enregistrée.')).toBeVisible();
  // The name is asked for before the browser is.
  await keys.getByRole('button', { name: 'Ajouter une clé de sécurité' }).click();
  await expect(keys.getByText('Champ obligatoire')).toBeVisible();
  expect(await key.credentials()).toHaveLength(0);

  await addKey(page, 'Clé USB du poste 2');
  const list = keys.getByRole('list', { name: 'Vos clés de sécurité' });
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list.getByText('Clé USB du poste 2')).toBeVisible();
  await expect(list.getByText('Jamais utilisée')).toBeVisible();
  await expect(list.getByText(/^Ajoutée le \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}$/)).toBeVisible();
  expect(await key.credentials()).toHaveLength(1);
  for (const [width, height] of [
    [1280, 800],
    [768, 1024],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: `test-results/security-keys-section-${width}.png`, fullPage: true });
  }
  await expectNoSeriousAxeViolation(page);

  // The same key again: the browser refuses it (the account's keys are excluded), in French.
  await keys.getByLabel('Nom de la clé').fill('Encore elle');
  await keys.getByRole('button', { name: 'Ajouter une clé de sécurité' }).click();
  await expect(keys.getByRole('alert')).toHaveText('Cette clé de sécurité est déjà enregistrée.');
  await expect(list.getByRole('listitem')).toHaveCount(1);

  await signOut(page);
  // The e-mail field lets the browser offer the site's keys as it is focused (SPEC §5).
  await expect(page.getByLabel('Adresse e-mail')).toHaveAttribute('autocomplete', /webauthn$/);
  await expect(page.getByRole('button', { name: 'Se connecter avec une clé de sécurité' })).toBeVisible();
  for (const [width, height] of [
    [1280, 800],
    [768, 1024],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: `test-results/security-keys-sign-in-${width}.png`, fullPage: true });
  }
  await expectNoSeriousAxeViolation(page);
  await page.getByRole('button', { name: 'Se connecter avec une clé de sécurité' }).click();
  await expect(page).toHaveURL(/\/repair-orders$/);

  await page.goto('/profile/security');
  await expect(list.getByText(/^Dernière utilisation le \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}$/)).toBeVisible();
  await list.getByRole('link', { name: 'Renommer la clé « Clé USB du poste 2 »' }).click();
  const rename = page.getByRole('form', { name: 'Renommer la clé « Clé USB du poste 2 »' });
  await page.screenshot({ path: 'test-results/security-keys-rename-768.png', fullPage: true });
  await rename.getByLabel('Nom de la clé').fill('Clé du poste 2');
  await rename.getByRole('button', { name: 'Enregistrer' }).click();
  await seeToast(page, 'Clé de sécurité renommée');
  await expect(list.getByText('Clé du poste 2', { exact: true })).toBeVisible();

  await list.getByRole('link', { name: 'Supprimer la clé « Clé du poste 2 »' }).click();
  await expect(keys.getByText('Supprimer la clé « Clé du poste 2 » ? Elle ne permettra plus de vous connecter.')).toBeVisible();
  await page.screenshot({ path: 'test-results/security-keys-delete-768.png', fullPage: true });
  await keys.getByRole('button', { name: 'Supprimer définitivement' }).click();
  await seeToast(page, 'Clé de sécurité supprimée');
  await expect(keys.getByText('Aucune clé de sécurité enregistrée.')).toBeVisible();

  // The key still holds the credential; the account no longer knows it: the server answers 401.
  allowBrowserErrors(/status of 401 .*\/sign-in\/security-key\)$/);
  await signOut(page);
  await page.getByRole('button', { name: 'Se connecter avec une clé de sécurité' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Clé de sécurité non reconnue.' })).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("a terminal's fingerprint reader: a step-up after a password sign-in, then the autofill form signs in", async ({ page, browser }) => {
  // Signed in with the password before the key exists: this sign-in has never proved a factor.
  await signIn(page, 'hugo.boyer@demo.local');
  // Added from another terminal (which the new key's ceremony elevates), then read here too.
  const other = await (await browser.newContext({ storageState: undefined })).newPage();
  const reader = await plugSecurityKey(other, 'internal');
  await signIn(other, 'hugo.boyer@demo.local');
  await addKey(other, 'Clé de Hugo');
  const here = await plugSecurityKey(page, 'internal');
  for (const credential of await reader.credentials()) await here.add(credential);
  await page.goto('/profile/security');
  const token = async () => (await (await page.request.get('/api/session/token')).json()).accessToken as string;
  const claims = (accessToken: string) => JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString())['https://hasura.io/jwt/claims'];
  expect(claims(await token())['x-hasura-auth-elevated']).toBeUndefined();

  // As @nhost/hasura-auth-js's elevateEmailSecurityKey does it, in the page: options, the
  // browser's ceremony, then verify, each with the session's bearer token.
  const elevated = await page.evaluate(
    async (accessToken) => {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` };
      const toBytes = (s: string) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const toText = (buffer: ArrayBuffer) =>
        btoa(String.fromCharCode(...new Uint8Array(buffer)))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
      const options = await (
        await fetch('/api/auth/elevate/webauthn', { method: 'POST', headers, body: JSON.stringify({ email: 'hugo.boyer@demo.local' }) })
      ).json();
      const credential = (await navigator.credentials.get({
        publicKey: {
          ...options,
          challenge: toBytes(options.challenge),
          allowCredentials: options.allowCredentials.map((c: { id: string }) => ({ type: 'public-key', id: toBytes(c.id) })),
        },
      })) as PublicKeyCredential;
      const response = credential.response as AuthenticatorAssertionResponse;
      const body = {
        email: 'hugo.boyer@demo.local',
        credential: {
          id: credential.id,
          rawId: toText(credential.rawId),
          type: credential.type,
          authenticatorAttachment: credential.authenticatorAttachment,
          clientExtensionResults: {},
          response: {
            clientDataJSON: toText(response.clientDataJSON),
            authenticatorData: toText(response.authenticatorData),
            signature: toText(response.signature),
            ...(response.userHandle ? { userHandle: toText(response.userHandle) } : {}),
          },
        },
      };
      const res = await fetch('/api/auth/elevate/webauthn/verify', { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    },
    await token(),
  );
  expect(elevated.status).toBe(200);
  const userId = claims(elevated.body.session.accessToken)['x-hasura-user-id'];
  expect(claims(elevated.body.session.accessToken)['x-hasura-auth-elevated']).toBe(userId);
  // The page's own sign-in is the one elevated.
  expect(claims(await token())['x-hasura-auth-elevated']).toBe(userId);

  // Signed out, the sign-in page asks at once for options any key of the site may answer, and
  // the browser offers the reader's key in the e-mail field's list; the virtual reader picks it
  // as the user would, and the session is open without a click on the button.
  const autofill = page.waitForRequest((request) => request.url().endsWith('/api/auth/signin/webauthn') && request.postData() === '{}');
  // Signed out by hand: the autofill may sign in again before the sign-in page could be seen.
  await page.getByLabel('Menu du profil').first().click();
  await page.getByRole('button', { name: 'Se déconnecter', exact: true }).click();
  await autofill;
  await expect(page).toHaveURL(/\/repair-orders$/);
  expect(claims(await token())['x-hasura-auth-elevated']).toBe(userId);
});

// The walk of 27 November (decision 064): an account whose only factor is a key is sent to
// /profile/confirm by the profile; the page says what to do and how to go back, with
// JavaScript and without, and the key brings it back to the form, as typed, with a toast.
test('a key-only account confirms a new address with its key, told what to do, and comes back to the form with a toast', async ({ page, browser }) => {
  await plugSecurityKey(page);
  await signIn(page, 'olivier.perrin@demo.local');
  await addKey(page, 'Clé USB du comptoir');
  await signOut(page);
  await signIn(page, 'olivier.perrin@demo.local');
  await page.goto('/profile');
  const form = page.getByRole('form', { name: "Modifier le nom et l'e-mail" });
  await form.getByLabel('E-mail').fill('olivier.comptoir@demo.local');
  await form.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'confirmez votre identité avec votre clé de sécurité' })).toBeVisible();

  // Without JavaScript the page says the key needs it, and leads back.
  const noJs = await browser.newContext({
    storageState: await page.context().storageState(),
    javaScriptEnabled: false,
    viewport: { width: 768, height: 1024 },
  });
  const plain = await noJs.newPage();
  await plain.goto('/profile/confirm?retour=%2Fprofile');
  await expect(plain.getByText('confirmez votre identité avec votre clé de sécurité')).toBeVisible();
  await expect(plain.getByText('La confirmation par clé de sécurité demande JavaScript')).toBeVisible();
  await expect(plain.getByRole('link', { name: 'Annuler' })).toHaveAttribute('href', '/profile');
  await shot(plain, 'confirm-key-nojs-tablet');
  await noJs.close();

  await form.getByRole('link', { name: 'Confirmer avec ma clé de sécurité' }).click();
  await expect(page.getByText('confirmez votre identité avec votre clé de sécurité')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Annuler' })).toHaveAttribute('href', '/profile');
  await expect(page.getByText('demande JavaScript')).toHaveCount(0);
  await shot(page, 'confirm-key-js-desktop');
  await page.getByRole('button', { name: 'Confirmer avec ma clé de sécurité' }).click();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole('status').filter({ hasText: 'Identité confirmée' })).toBeVisible();
  // What was typed is back; the key is no longer asked.
  await expect(form.getByLabel('E-mail')).toHaveValue('olivier.comptoir@demo.local');
  await expect(page.getByText('confirmez votre identité')).toHaveCount(0);
  await shot(page, 'profile-after-key-proof-desktop');
  await form.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Un lien de confirmation a été envoyé à olivier.comptoir@demo.local' })).toBeVisible();
});
