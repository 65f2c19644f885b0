// The pure modules of the shell: route table and guard, capability table, validators, formats, i18n.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { convertToTsx } from '@astrojs/astro2tsx';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatNumber, formatTime } from '#lib/format.ts';
import { singular } from '#lib/plural.ts';
import { baseItemSchema } from '#lib/base/base.ts';
import { gearboxModelSchema } from '#lib/gearboxes/gearboxes.ts';
import { profileSchema } from '#lib/users/users.ts';
import { measureSchema } from '#lib/gearboxes/measures.ts';
import { outageSchema } from '#lib/gearboxes/outages.ts';
import { acceleratorLoads } from '#lib/repair-orders/conditions.ts';
import { outageProceduresSchema, procedureSchema } from '#lib/gearboxes/procedures.ts';
import { t, type MessageKey } from '#lib/i18n.ts';
import { t as browserT } from '#lib/i18n/browser.ts';
import { fr } from '#lib/i18n/fr.ts';
import { can } from '#lib/permissions.ts';
import { guardRedirect, matchRoute, navTabs, routes, selectedTab } from '#lib/routes.ts';
import { email, fieldErrors, integer, minNumber, nonEmpty, number, required, setPasswordSchema, signInSchema, year } from '#lib/validation.ts';
import { z } from 'zod';

const ID = '3f0c6a52-8c1e-4b7a-9d2e-5a6b7c8d9e0f';

describe('route table (SPEC §2.1)', () => {
  it('lists the 19 routes of the specification, the intervention report (page and PDF), two creation forms guarded apart, the profile page, its security, phone, tokens and step-up pages, and the three passwordless sign-in pages, the activity of an order, a dossier and a user with their CSV, the mail waiting to leave, the workshop at a glance, the outage sheet for the customer (page and PDF), and a stored file as a page links it', () => {
    expect(routes).toHaveLength(42);
  });

  it.each([
    ['/repair-order/x/code-conditions', '/repair-order/{or_uuid}/code-conditions/{code_uuid?}', { or_uuid: 'x', code_uuid: undefined }],
    [`/repair-order/x/code-conditions/${ID}`, '/repair-order/{or_uuid}/code-conditions/{code_uuid?}', { or_uuid: 'x', code_uuid: ID }],
    ['/repair-order/x/diagnostic/', '/repair-order/{uuid}/diagnostic', { uuid: 'x' }],
    // The creation form first (A and D only), then the outage for every role (decision 019).
    ['/gearbox/g/outage', '/gearbox/{gearboxUuid}/outage', { gearboxUuid: 'g' }],
    [`/gearbox/g/outage/${ID}`, '/gearbox/{gearboxUuid}/outage/{outageUuid?}', { gearboxUuid: 'g', outageUuid: ID }],
    ['/repair-order', '/repair-order', {}],
  ])('matches %s', (path, pattern, params) => {
    const match = matchRoute(path)!;
    expect(match.route.path).toBe(pattern);
    expect(match.params).toEqual(params);
  });

  it('matches nothing for unknown or malformed paths', () => {
    expect(matchRoute('/')).toBeNull();
    expect(matchRoute('/repair-order/a/b')).toBeNull();
    expect(matchRoute('/repair-order/%E0%A4%A')).toBeNull();
  });
});

describe('guard (SPEC §2.2)', () => {
  it('sends unknown paths home or to sign-in', () => {
    expect(guardRedirect('/nulle-part', null)).toBe('/sign-in');
    expect(guardRedirect('/nulle-part', 'mechanic')).toBe('/repair-orders');
  });
  it('keeps /sign-in for the signed out only', () => {
    expect(guardRedirect('/sign-in', null)).toBeNull();
    expect(guardRedirect('/sign-in', 'app_admin')).toBe('/repair-orders');
  });
  it('applies the roles of each route', () => {
    expect(guardRedirect('/users', 'app_admin')).toBeNull();
    expect(guardRedirect('/users', 'diagnostician')).toBe('/repair-orders');
    expect(guardRedirect('/stock', 'mechanic')).toBe('/repair-orders');
    expect(guardRedirect('/stock', 'commercial')).toBeNull();
    expect(guardRedirect('/repair-order', 'commercial')).toBe('/repair-orders');
    expect(guardRedirect(`/repair-order/${ID}/measure/${ID}`, 'mechanic')).toBeNull();
    expect(guardRedirect('/jump', null)).toBe('/sign-in');
    expect(guardRedirect('/set-password', 'mechanic')).toBeNull();
  });
});

describe('navigation (SPEC §2.4)', () => {
  it('selects the tab of the current route, repair orders by default', () => {
    expect(selectedTab('/add-stock')).toBe('/stock');
    expect(selectedTab(`/gearbox/${ID}/outage`)).toBe('/gearboxes');
    expect(selectedTab('/repair-order')).toBe('/repair-orders');
    expect(selectedTab('/jump')).toBe('/repair-orders');
    // The account's pages belong to no tab: the header names no section there.
    for (const path of ['/profile', '/profile/security', '/profile/security/keys', '/profile/tokens', '/profile/phone', '/profile/confirm', '/set-password']) {
      expect(selectedTab(path)).toBeNull();
    }
  });
  it('shows each role its tabs', () => {
    const tabs = (role: 'mechanic' | 'commercial') => navTabs.filter((tab) => tab.roles.includes(role)).map((tab) => tab.href);
    expect(tabs('mechanic')).toEqual(['/repair-orders', '/gearboxes']);
    expect(tabs('commercial')).toEqual(['/repair-orders', '/stock', '/gearboxes']);
  });
});

describe('capabilities', () => {
  it('does not let a mechanic edit the profile', () => {
    expect(can('mechanic', 'editOwnProfile')).toBe(false);
    expect(can('commercial', 'editOwnProfile')).toBe(true);
    expect(can(null, 'editOwnProfile')).toBe(false);
  });
});

describe('validators (SPEC §5)', () => {
  const message = (schema: z.ZodType, value: unknown) => {
    const result = schema.safeParse(value);
    return result.success ? null : result.error.issues[0]!.message;
  };
  it('says the exact French messages', () => {
    expect(message(required(), '  ')).toBe('Champ obligatoire');
    expect(message(email(), 'atelier@')).toBe('Adresse e-mail invalide');
    expect(message(email(), '')).toBe('Champ obligatoire');
    expect(message(year(), '96')).toBe('Année invalide');
    expect(year().parse('2016')).toBe(2016);
    expect(message(number(), 'douze')).toBe('Nombre invalide');
    expect(number().parse('12,5')).toBe(12.5);
    expect(message(minNumber(3), '2')).toBe('Minimum 3');
    expect(message(integer(), '2.5')).toBe('Nombre entier attendu');
    expect(message(nonEmpty(z.string()), [])).toBe('Champ obligatoire');
  });
  it('checks the set-password form: rules, confirmation and terms', () => {
    const result = setPasswordSchema.safeParse({ password: 'motdepasse', confirmation: 'autre' });
    expect(result.success).toBe(false);
    expect(fieldErrors(result.error!)).toEqual({
      // Every rule it breaks, not the first one only.
      password: 'Au moins une majuscule, au moins un chiffre, au moins un caractère spécial',
      confirmation: 'Les mots de passe ne sont pas identiques',
      terms: "Vous devez accepter les conditions d'utilisation",
    });
    expect(setPasswordSchema.safeParse({ password: 'Boite-2026!', confirmation: 'Boite-2026!', terms: 'on' }).success).toBe(true);
  });
  it('checks the sign-in and profile forms', () => {
    expect(fieldErrors(signInSchema.safeParse({ email: '', password: '' }).error!)).toEqual({ email: 'Champ obligatoire', password: 'Champ obligatoire' });
    expect(profileSchema.parse({ displayName: ' Anne ', email: 'anne@garage.fr' })).toEqual({ displayName: 'Anne', email: 'anne@garage.fr' });
  });
});

describe('formats (SPEC §1)', () => {
  it('writes dates as DD/MM/YYYY, HH:mm and DD/MM/YYYY HH:mm, numbers as fr-FR', () => {
    // 06:05 UTC is 07:05 in the workshop (Paris, winter), whatever the process's own zone.
    const date = new Date('2026-11-22T06:05:00Z');
    expect(formatDate(date)).toBe('22/11/2026');
    expect(formatTime(date)).toBe('07:05');
    expect(formatDateTime(date)).toBe('22/11/2026 07:05');
    expect(formatDate(null)).toBe('');
    expect(formatDate('pas une date')).toBe('');
    expect(formatNumber(123456.5)).toBe('123\u202f456,5');
  });
  it('interpolates catalogue messages', () => {
    expect(t('validation.minLength', { min: 8 })).toBe('Minimum 8 caractères');
    expect(t('errors.fileImport', { file: 'courbe.csv' })).toBe("Erreur lors de l'import du fichier courbe.csv");
  });
  it('fills every message in the browser as i18next does on the server (decision 025)', () => {
    const messages: [string, string][] = [];
    const walk = (node: object, prefix: string) => {
      for (const [name, value] of Object.entries(node)) typeof value === 'string' ? messages.push([prefix + name, value]) : walk(value, `${prefix}${name}.`);
    };
    walk(fr, '');
    for (const [key, message] of messages) {
      // Each variable the message names, a text and a number; one it does not name; none at all.
      const names = [...message.matchAll(/\{\{(.+?)\}\}/g)].map((m) => m[1]!.trim());
      const texts = Object.fromEntries(names.map((name, i) => [name, `<${name} $& {{x}}>`.repeat(i + 1)]));
      const numbers = Object.fromEntries(names.map((name, i) => [name, i + 0.5]));
      for (const vars of [texts, numbers, { other: 'x' }, undefined]) expect(browserT(message, vars), key).toBe(t(key as MessageKey, vars));
    }
    expect(messages.length).toBeGreaterThan(500);
  });

  it('writes counts in words, singular under 2 as French does, never «(s)»', () => {
    const users = (count: number) => (singular(count) ? t('users.countOne', { count }) : t('users.count', { count }));
    expect([0, 1, 2, 29].map(users)).toEqual(['0 utilisateur', '1 utilisateur', '2 utilisateurs', '29 utilisateurs']);
    expect(t('faultCodes.discardBodyOne', { count: 1, codes: 'P0562' })).toBe("1 code défaut et ses conditions d'apparition seront supprimés : P0562.");
    const messages: [string, string][] = [];
    const walk = (node: object, prefix: string) => {
      for (const [name, value] of Object.entries(node)) typeof value === 'string' ? messages.push([prefix + name, value]) : walk(value, `${prefix}${name}.`);
    };
    walk(fr, '');
    expect(messages.filter(([, m]) => m.includes('{{count}}') && m.includes('(s)'))).toEqual([]);
    // Each singular beside its plural, both with the count.
    for (const [key, one] of messages.filter(([k, m]) => k.endsWith('One') && m.includes('{{count}}'))) {
      expect(messages.find(([k]) => k === key.slice(0, -3))?.[1], key).toContain('{{count}}');
      expect(one, key).not.toBe(messages.find(([k]) => k === key.slice(0, -3))?.[1]);
    }
  });

  it('says the limit when a text is too long, never "Champ obligatoire"', () => {
    const long = gearboxModelSchema.safeParse({ model: 'M'.repeat(61), type: 'automatic', constructorName: 'ZF', startYear: '2010' });
    expect(fieldErrors(long.error!)).toEqual({ model: '60 caractères au plus' });
    expect(fieldErrors(baseItemSchema.safeParse({ name: 'x'.repeat(121) }).error!)).toEqual({ name: '120 caractères au plus' });
  });

  it('writes the straight apostrophe of SPEC §8 everywhere, never the typographic one (decision 020)', () => {
    // SPEC §8's own words, as a client matching them looks for them.
    expect(t('errors.repairOrderLoad')).toBe("Impossible de récupérer l'ordre de réparation");
    expect(t('errors.repairOrderCreate')).toBe("Erreur lors de la création de l'OR");
    const typographic = String.fromCharCode(0x2019);
    // Every tracked source file, as committed: none holds it.
    const found = spawnSync('git', ['grep', '-l', typographic, '--', 'src', 'server', 'e2e', 'tests'], { encoding: 'utf8' });
    expect(found.stdout).toBe('');
  });

  it('keeps every French word in the catalogue: no page, service or route writes one itself', () => {
    // Every text a source file writes (string and template literals, the markup of pages and
    // islands, their scripts; never a comment), read as TypeScript reads it (.astro files through
    // the TSX that \`astro check\` reads): none is French. French: a French letter or guillemet, or,
    // in a text of several words, a French word. The demo data is the workshop's, not the app's;
    // the accelerator loads are the stored values SPEC §3 lists.
    const frenchLetter = /[àâäçéèêëîïôöûùüÿœæ«»]/i;
    const frenchWord = /(^|[\s'(])(le|la|les|des|du|une?|est|pas|pour|avec|aux?|vous|votre|vos|cette|ces|dans|sur|de|et|ou|à)(?=[\s),.:;!?]|$)/i;
    const allowed = (file: string, text: string) => file === 'src/lib/repair-orders/conditions.ts' && acceleratorLoads.some((load) => load === text);
    const files = ['src', 'server']
      .flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => `${dir}/${f}`))
      .filter((f) => /\.(ts|tsx|astro)$/.test(f) && f !== 'src/lib/i18n/fr.ts' && !f.startsWith('server/demo/'));
    /** The French texts `text` writes, read as TypeScript reads it. */
    const frenchIn = (file: string, text: string): string[] => {
      const found: string[] = [];
      const tsx = file.endsWith('.astro') ? convertToTsx(text, { filename: file }) : null;
      const sources = tsx ? [tsx.code, ...tsx.scripts.map((script) => script.content)] : [text];
      for (const source of sources) {
        const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.TSX);
        const visit = (node: ts.Node): void => {
          if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
          const said = ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node) || ts.isJsxText(node) ? node.text.trim() : '';
          if (said && !allowed(file, said) && (frenchLetter.test(said) || (/\s/.test(said) && frenchWord.test(said)))) found.push(`${file}: ${said}`);
          ts.forEachChild(node, visit);
        };
        visit(tree);
      }
      return found;
    };
    // The reader still finds French where it hides (a converter that changed its output would
    // otherwise make this test pass on everything).
    expect(frenchIn('canary.astro', "---\nconst title = 'Titre';\n---\n<p title={title}>Réessayez</p><script>alert('Pas de réseau')</script>")).toEqual([
      'canary.astro: Réessayez',
      'canary.astro: Pas de réseau',
    ]);
    const found: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      // Most files say every text through t(): only those that hold a French letter or word
      // anywhere (a comment too), or an escaped character, are read closely.
      if (!frenchLetter.test(text) && !new RegExp(frenchWord.source, 'im').test(text) && !/\\u|\\x|&#?\w+;/.test(text)) continue;
      found.push(...frenchIn(file, text));
    }
    expect(found).toEqual([]);
    expect(t('mail.emailChangeNotice.intro', { newEmail: 'b@x.fr' })).toContain('par b@x.fr.');
  });

  it('uses every text of the catalogue: none is left over from a screen that changed', () => {
    // Named as a key somewhere, or in a section read whole (label maps, tabs, mails).
    // The audit trail's words are read by the kind, action or field an event names (decision 034).
    const wholeSections = [
      'labels.',
      'nav.',
      'mail.',
      'orderMeasures.results.',
      'audit.actions.',
      'audit.kinds.',
      'audit.fields.',
      'audit.subjects.',
      'messageQueue.kinds.',
      'messageQueue.statuses.',
    ];
    const keys: string[] = [];
    const walk = (node: object, prefix: string) => {
      for (const [name, value] of Object.entries(node)) typeof value === 'string' ? keys.push(prefix + name) : walk(value, `${prefix}${name}.`);
    };
    walk(fr, '');
    const files = ['src', 'server'].flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => `${dir}/${f}`));
    const code = files
      .filter((f) => /\.(ts|tsx|astro)$/.test(f) && f !== 'src/lib/i18n/fr.ts')
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const unused = keys.filter(
      (key) => !key.endsWith('_one') && !wholeSections.some((s) => key.startsWith(s)) && !new RegExp(`['"\`]${key.replace(/\./g, '\\.')}['"\`]`).test(code),
    );
    expect(unused).toEqual([]);
  });

  it('says the limit of a text or a list too long, in French, on the dossier forms', () => {
    const long = 'x'.repeat(5000);
    const errorsOf = (schema: z.ZodType, input: unknown) => {
      const result = schema.safeParse(input);
      return result.success ? {} : fieldErrors(result.error);
    };
    expect(errorsOf(measureSchema, { name: 'Pression', description: long, unit: long })).toEqual({
      description: '2000 caractères au plus',
      unit: '20 caractères au plus',
    });
    expect(errorsOf(outageSchema, { component: 'Embrayage', outageType: 'Usure', description: long })).toEqual({ description: '2000 caractères au plus' });
    expect(errorsOf(procedureSchema, { name: 'Vidange', description: long, steps: 'Vider', checkpoints: [{ name: 'Niveau', description: long }] })).toEqual({
      description: '2000 caractères au plus',
      checkpoints: '1000 caractères au plus',
    });
    const ids = Array.from({ length: 51 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    expect(errorsOf(outageProceduresSchema, { procedureIds: ids })).toEqual({ procedureIds: '50 éléments au plus' });
  });
});
