// Issue 28, item 1: nothing typed is lost. A page form changed and not posted asks before the page
// goes; without JavaScript a refused post comes back at the page's own address (303 → GET) with
// what was typed and why, so a reload never posts again (decision 039).
import { expect, test } from './support/test.ts';
import { refusedPost, storageState } from './support/fixtures.ts';

test.describe('a diagnostician', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('is asked before leaving a form changed and not posted; its own links and posting leave freely', async ({ page }) => {
    await page.goto('/repair-order');
    await page.getByLabel("N° d'OR").fill('OR-E2E-GARDE');
    const dialogs: string[] = [];
    page.once('dialog', async (dialog) => {
      dialogs.push(dialog.type());
      await dialog.dismiss();
    });
    const nav = page.getByRole('navigation', { name: 'Navigation principale' });
    await nav.getByRole('link').first().click();
    await expect.poll(() => dialogs).toEqual(['beforeunload']);
    await expect(page).toHaveURL(/\/repair-order$/);
    await expect(page.getByLabel("N° d'OR")).toHaveValue('OR-E2E-GARDE');
    // A refused post keeps what was typed and asks nothing.
    await page.getByRole('button', { name: "Créer l'OR" }).click();
    await expect(page.getByLabel("N° d'OR")).toHaveValue('OR-E2E-GARDE');
    expect(dialogs).toEqual(['beforeunload']);
    // What the refusal shows again is still not saved: leaving asks, untouched as it is.
    page.once('dialog', async (dialog) => {
      dialogs.push(dialog.type());
      await dialog.dismiss();
    });
    await nav.getByRole('link').first().click();
    await expect.poll(() => dialogs).toEqual(['beforeunload', 'beforeunload']);
    await expect(page.getByLabel("N° d'OR")).toHaveValue('OR-E2E-GARDE');
  });
});

test.describe('a diagnostician leaving a form', () => {
  test.use({ storageState: storageState('diagnostician') });

  test('finds what was typed when Back brings the form again (walk31 F2)', async ({ page }) => {
    await page.goto('/repair-order');
    await page.getByLabel("N° d'OR").fill('OR-E2E-RETOUR');
    await page.getByLabel('Commentaire').fill('Client signale des à-coups');
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('navigation', { name: 'Navigation principale' }).getByRole('link', { name: 'Stock' }).click();
    await expect(page).toHaveURL(/\/stock/);
    await page.goBack();
    await expect(page.getByLabel("N° d'OR")).toHaveValue('OR-E2E-RETOUR');
    await expect(page.getByLabel('Commentaire')).toHaveValue('Client signale des à-coups');
    // What came back is still not saved: leaving asks again.
    const dialogs: string[] = [];
    page.once('dialog', async (dialog) => {
      dialogs.push(dialog.type());
      await dialog.dismiss();
    });
    await page.getByRole('navigation', { name: 'Navigation principale' }).getByRole('link', { name: 'Stock' }).click();
    await expect.poll(() => dialogs).toEqual(['beforeunload']);
  });

  test('finds the form empty when Back follows a save that went through (rewalk R1)', async ({ page }) => {
    await page.goto('/repair-orders');
    await page.getByRole('link', { name: 'Nouvel OR' }).click();
    await page.getByLabel("N° d'OR").fill('OR-E2E-R1');
    await page.getByLabel("Catégorie d'intervention").selectOption({ label: 'Boîte seule' });
    await page.getByLabel('Modèle de boîte').selectOption({ label: 'ZF 8HP45' });
    await page.getByLabel('Marque').fill('Peugeot');
    await page.getByRole('button', { name: "Créer l'OR" }).click();
    await expect(page.getByRole('heading', { name: 'OR-E2E-R1' })).toBeVisible();
    await page.goBack();
    await expect(page).toHaveURL(/\/repair-order$/);
    await expect(page.getByLabel("N° d'OR")).toHaveValue('');
    await expect(page.getByLabel('Marque')).toHaveValue('');
    const dialogs: string[] = [];
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.type());
      await dialog.dismiss();
    });
    await page.getByRole('navigation', { name: 'Navigation principale' }).getByRole('link', { name: 'Stock' }).click();
    await expect(page).toHaveURL(/\/stock/);
    expect(dialogs).toEqual([]);
  });

  test('finds what was typed when the form is opened again after a post the network lost (walk31 F2)', async ({ page, context }) => {
    await page.goto('/symptoms-conditions-base');
    await page.getByRole('navigation', { name: 'Listes de la base' }).getByRole('link', { name: 'Types de panne' }).click();
    const form = page.getByRole('region', { name: /Nouvel élément/ });
    await form.getByLabel('Nom').fill('Grippage partiel (hors réseau)');
    await context.setOffline(true);
    await form.getByRole('button', { name: 'Ajouter' }).click();
    await expect.poll(() => page.url()).toMatch(/^chrome-error:/);
    await context.setOffline(false);
    // Chromium's error page takes the form's place in the history: Back leads before it, and the
    // form, opened again, has what was typed.
    await page.goBack();
    await page.getByRole('navigation', { name: 'Listes de la base' }).getByRole('link', { name: 'Types de panne' }).click();
    await expect(form.getByLabel('Nom')).toHaveValue('Grippage partiel (hors réseau)');
  });

  test('is asked before a «Retour» link of the form drops what was typed; «Annuler» leaves freely (walk31 W1)', async ({ page }) => {
    await page.goto('/repair-orders?recherche=OR-2026-0601');
    const order = (await page.getByRole('link', { name: 'OR-2026-0601', exact: true }).getAttribute('href'))!;
    await page.goto(`${order}/code-conditions`);
    await page.getByLabel('Code défaut').fill('P0700');
    const dialogs: string[] = [];
    page.once('dialog', async (dialog) => {
      dialogs.push(dialog.type());
      await dialog.dismiss();
    });
    await page.getByRole('link', { name: 'Retour au relevé' }).click();
    await expect.poll(() => dialogs).toEqual(['beforeunload']);
    await expect(page.getByLabel('Code défaut')).toHaveValue('P0700');
    await page.goto('/gearbox');
    await page
      .getByRole('textbox', { name: /^Modèle/ })
      .first()
      .fill('ZF 6HP19 brouillon');
    await page.getByRole('link', { name: 'Annuler' }).click();
    await expect(page).toHaveURL(/\/gearboxes$/);
    expect(dialogs).toEqual(['beforeunload']);
  });
});

test.describe('without JavaScript', () => {
  test.use({ storageState: storageState('diagnostician'), javaScriptEnabled: false });

  test('a refused post lands on the page address with what was typed and why; a reload does not post again', async ({ page }) => {
    await page.goto('/repair-order');
    await page.getByLabel("N° d'OR").fill('OR-E2E-PRG');
    const posts = await refusedPost(page, page.getByRole('button', { name: "Créer l'OR" }));
    await expect(page).toHaveURL(/\/repair-order$/);
    await expect(page.getByLabel("N° d'OR")).toHaveValue('OR-E2E-PRG');
    await expect(page.getByLabel('Modèle de boîte')).toHaveAttribute('aria-invalid', 'true');
    // A reload reads the page again, what was typed and why still shown; it does not post again.
    await page.reload();
    expect(posts).toHaveLength(1);
    await expect(page.getByLabel("N° d'OR")).toHaveValue('OR-E2E-PRG');
    await expect(page.getByLabel('Modèle de boîte')).toHaveAttribute('aria-invalid', 'true');
  });

  // The other forms of a diagnostician's day, the same way: typed, refused, shown again at the page's
  // own address, and a reload posts nothing.
  const others = [
    { path: '/add-stock', field: 'Commentaire', typed: 'Boîte à reprendre, carter fêlé', submit: 'Ajouter au stock', message: 'Champ obligatoire' },
    { path: '/symptoms-conditions-base?onglet=composants', field: 'Nom', typed: 'mécatronique', submit: 'Ajouter', message: 'Cet item existe déjà' },
    // A sign-in older than five minutes (a full run) hears the proof asked before the address taken (decision 048).
    {
      path: '/profile',
      field: 'E-mail',
      typed: 'admin@demo.local',
      submit: 'Enregistrer',
      message: /Email non disponible|confirmez votre identité avec votre mot de passe actuel/,
    },
  ];
  for (const form of others) {
    test(`${form.path}: a refused post comes back at the page's address, with what was typed`, async ({ page }) => {
      await page.goto(form.path);
      await page
        .getByRole('textbox', { name: new RegExp(`^${form.field}`) })
        .filter({ visible: true })
        .first()
        .fill(form.typed);
      const posts = await refusedPost(page, page.getByRole('button', { name: form.submit, exact: true }));
      expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(form.path);
      await expect(
        page
          .getByRole('textbox', { name: new RegExp(`^${form.field}`) })
          .filter({ visible: true })
          .first(),
      ).toHaveValue(form.typed);
      await expect(page.getByText(form.message).first()).toBeVisible();
      await page.reload();
      expect(posts).toHaveLength(1);
    });
  }

  test("a stock box's refused move comes back at the box's address, not the form's action", async ({ page }) => {
    await page.goto('/stock');
    // The first box of the list (the counts above it are a table too).
    await page.locator('a[href*="article="]').first().click();
    await expect(page).toHaveURL(/article=/);
    const box = new URL(page.url());
    const move = page.getByRole('form', { name: 'Déplacer dans le stock' });
    await move.getByLabel('Rayon').fill('B 12 !');
    const posts = await refusedPost(page, move.getByRole('button', { name: 'Déplacer' }));
    expect(posts[0]).toContain('action=deplacer');
    expect(page.url()).toBe(box.href);
    await expect(move.getByLabel('Rayon')).toHaveValue('B 12 !');
    await expect(move.getByLabel('Rayon')).toHaveAccessibleDescription('Rayon invalide : lettres, chiffres ou tiret');
    await page.reload();
    expect(posts).toHaveLength(1);
    await expect(move.getByLabel('Rayon')).toHaveValue('B 12 !');
  });

  // Forms posting to an address that names their action (`&action=…`) come back at the tab or
  // step that shows them, scrolled to the form (decision 039).
  test("the diagnostic's refused curve comes back at its tab, at the form, not the form's action", async ({ page }) => {
    await page.goto('/repair-orders?recherche=OR-2026-0698');
    await page.getByRole('link', { name: 'OR-2026-0698', exact: true }).click();
    await page.goto(`${new URL(page.url()).pathname}/diagnostic?onglet=courbes`);
    const tab = page.url();
    const form = page.locator('#courbe-formulaire');
    await form.getByLabel('Résultat').fill('Pression instable en 3e');
    const posts = await refusedPost(page, form.getByRole('button', { name: 'Ajouter la courbe' }));
    expect(posts[0]).toContain('action=courbe-ajout');
    expect(page.url()).toBe(`${tab}#courbe-formulaire`);
    await expect(form.getByLabel('Résultat')).toHaveValue('Pression instable en 3e');
    await expect(form.getByRole('textbox', { name: /^Description/ })).toHaveAccessibleDescription('Champ obligatoire');
    await expect(page.getByRole('heading', { name: 'Ajouter une courbe' })).toBeInViewport();
    await page.reload();
    expect(posts).toHaveLength(1);
    await expect(form.getByLabel('Résultat')).toHaveValue('Pression instable en 3e');
  });

  test("a dossier's refused procedure comes back at its tab with the form open, not the form's action", async ({ page }) => {
    await page.goto('/gearboxes');
    await page.locator('a[href^="/gearbox/"]').first().click();
    await page.goto(`${new URL(page.url()).pathname}?onglet=procedures`);
    await page.getByRole('link', { name: 'Nouvelle procédure' }).click();
    const form = new URL(page.url());
    await page.getByLabel('Objet').fill('Contrôle du bloc hydraulique');
    const posts = await refusedPost(page, page.getByRole('button', { name: 'Enregistrer la procédure' }));
    expect(posts[0]).toContain('action=enregistrer-procedure');
    expect(page.url()).toBe(`${form.href}#procedure-form`);
    await expect(page.getByLabel('Objet')).toHaveValue('Contrôle du bloc hydraulique');
    await expect(page.getByRole('textbox', { name: /^Nom de la procédure/ })).toHaveAccessibleDescription('Champ obligatoire');
    // More rows: the same form at the same place, longer, with what was typed.
    await page.getByLabel('Point de contrôle 1', { exact: true }).fill('Pression de ligne');
    await page.getByRole('button', { name: 'Ajouter des lignes' }).click();
    expect(posts[1]).toMatch(/action=enregistrer-procedure&lignes=\d+$/);
    await expect(page).toHaveURL(new RegExp(`^${form.href.replace(/[?]/g, '\\?')}&lignes=\\d+#procedure-form$`));
    await expect(page.getByLabel('Point de contrôle 1', { exact: true })).toHaveValue('Pression de ligne');
    await expect(page.getByLabel('Point de contrôle 6', { exact: true })).toBeVisible();
    await page.reload();
    expect(posts).toHaveLength(2);
    await expect(page.getByLabel('Objet')).toHaveValue('Contrôle du bloc hydraulique');
    await expect(page.getByLabel('Point de contrôle 1', { exact: true })).toHaveValue('Pression de ligne');
    // Enter in a field saves, as in every form, and does not add rows (walk31 F13).
    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByLabel('Point de contrôle 1', { exact: true }).press('Enter')]);
    expect(posts[2]).toMatch(/action=enregistrer-procedure$/);
    await expect(page.getByRole('textbox', { name: /^Nom de la procédure/ })).toHaveAccessibleDescription('Champ obligatoire');
  });
});
