// One schema per page for its path and query (issue 14, item 8): invalid values fall back to defaults.
import { describe, expect, it } from 'vitest';
import { querySchema as gearboxesQuerySchema, read as readGearboxesQuery } from '#pages/_gearboxes.screen.ts';
import { querySchema as basePageSchema } from '#pages/_symptoms-conditions-base.screen.ts';
import { querySchema as codeConditionsPageSchema } from '#pages/repair-order/[orderId]/code-conditions/_faultCodeId.screen.ts';
import { querySchema as diagnosticPageSchema } from '#pages/repair-order/[orderId]/_diagnostic.screen.ts';
import { modelPrefillSchema } from '#lib/gearboxes/gearboxes.ts';
import { querySchema as gearboxPageSchema } from '#pages/gearbox/[modelId]/_index.screen.ts';
import { querySchema as orderMeasurePageSchema } from '#pages/repair-order/[orderId]/measure/_measureId.screen.ts';
import { querySchema as outagePageSchema } from '#pages/gearbox/[modelId]/outage/_outageId.screen.ts';
import { filterNames as activityFilterNames, querySchema as activityQuerySchema } from '#lib/audit/activity.screen.ts';
import { ignoredFilters, pageBeyond, readPage, readQuery, reversedRange } from '#lib/page-query.ts';
import { querySchema as orderPageSchema } from '#pages/repair-order/[orderId]/_index.screen.ts';
import { querySchema as ordersQuerySchema, read as readOrdersQuery } from '#pages/_repair-orders.screen.ts';
import { signInPageSchema } from '#lib/validation.ts';
import { querySchema as stockQuerySchema, read as readStockQuery } from '#pages/_stock.screen.ts';
import { read as readUsersQuery } from '#pages/_users.screen.ts';

const MODEL = '6F1C2A9E-1B2C-4D3E-8F90-123456789ABC';
const q = (text: string) => new URLSearchParams(text);

describe('list page queries', () => {
  it('reads what the screens write', () => {
    expect(
      readOrdersQuery(q(`recherche=OR-12&du=2026-02-28&au=2026-03-31&categorie=gearbox_only&type=automatic&modele=${MODEL}&tri=numero&ordre=desc&page=3`)),
    ).toEqual({
      search: 'OR-12',
      from: '2026-02-28',
      to: '2026-03-31',
      category: 'gearbox_only',
      type: 'automatic',
      modelId: MODEL.toLowerCase(),
      sort: 'numero',
      descending: true,
      page: 3,
      status: null,
      referent: null,
      closedFrom: null,
      closedTo: null,
      reopenedFrom: null,
      reopenedTo: null,
      outageId: null,
      confirm: null,
      action: null,
    });
    // The overview's filters (issue 32): a status, a referent or none, closing and reopening days typed either way.
    expect(
      readOrdersQuery(q(`statut=CLOSED&referent=aucun&cloture_du=01/09/2026&cloture_au=2026-11-29&reouverture_du=2026-09-01&reouverture_au=29112026`)),
    ).toMatchObject({
      status: 'CLOSED',
      referent: 'aucun',
      closedFrom: '2026-09-01',
      closedTo: '2026-11-29',
      reopenedFrom: '2026-09-01',
      reopenedTo: '2026-11-29',
    });
    expect(readOrdersQuery(q(`referent=${MODEL}`)).referent).toBe(MODEL.toLowerCase());
    // An overview outage figure: the closed orders of a model that retained the outage.
    expect(readOrdersQuery(q(`statut=CLOSED&modele=${MODEL}&panne=${MODEL}`)).outageId).toBe(MODEL.toLowerCase());
    expect(readStockQuery(q('onglet=historique&rayon=b&etat=used&page=2'))).toMatchObject({ view: 'historique', rack: 'B', condition: 'used', page: 2 });
    expect(readGearboxesQuery(q('annee=2015&type=variator'))).toEqual({ search: '', type: 'variator', modelId: null, year: 2015, page: 1 });
    expect(readUsersQuery(q('recherche=Dupont&page=2'))).toEqual({ search: 'Dupont', page: 2, adding: false, confirmDelete: null });
  });

  it('falls back to defaults for impossible, huge or hostile values', () => {
    expect(readOrdersQuery(q('du=2026-02-31&au=99999-01-01&categorie=x&tri=__proto__&page=99999999999999999999&modele=..%2F'))).toEqual({
      search: '',
      from: null,
      to: null,
      category: null,
      type: null,
      modelId: null,
      sort: 'date',
      descending: true,
      page: 1,
      status: null,
      referent: null,
      closedFrom: null,
      closedTo: null,
      reopenedFrom: null,
      reopenedTo: null,
      outageId: null,
      confirm: null,
      action: null,
    });
    expect(readOrdersQuery(q('statut=OPEN&referent=..%2F&cloture_du=2026-02-31&reouverture_au=x&panne=1'))).toMatchObject({
      status: null,
      referent: null,
      closedFrom: null,
      reopenedTo: null,
      outageId: null,
    });
    expect(readOrdersQuery(q(`recherche=${'x'.repeat(500)}`)).search).toHaveLength(80);
    // No such month: the default, not an exception (it answered 500).
    expect(readOrdersQuery(q('du=2026-13-45&au=45/13/2026'))).toMatchObject({ from: null, to: null });
    expect(readGearboxesQuery(q('page=1e20&annee=99999&type=constructor&modele=x'))).toEqual({ search: '', type: null, modelId: null, year: null, page: 1 });
    expect(readStockQuery(q('onglet=autre&rayon=%3Cscript%3E&page=-4&modele=1'))).toMatchObject({ view: 'stock', rack: null, page: 1, modelId: null });
    expect(readUsersQuery(q('page=0.5&supprimer=..%2F&ajouter'))).toEqual({ search: '', page: 1, adding: true, confirmDelete: null });
  });

  it('names every filter it ignores, so the list can say so above itself', () => {
    expect(ignoredFilters(ordersQuerySchema, q('du=32/13/2026&au=2026-03-31&categorie=x&recherche=OR-12'))).toEqual([
      "Filtre ignoré : la date « 32/13/2026 » n'est pas valide.",
      "Filtre ignoré : la catégorie « x » n'est pas valide.",
    ]);
    expect(ignoredFilters(gearboxesQuerySchema, q('annee=abcd&type=automatic'))).toEqual(["Filtre ignoré : l'année « abcd » n'est pas valide."]);
    expect(ignoredFilters(stockQuerySchema, q('etat=cassé&rayon=B'))).toEqual(["Filtre ignoré : l'état « cassé » n'est pas valide."]);
    // The activity pages' filter and page (decision 045).
    expect(ignoredFilters(activityQuerySchema, q('action=bidon&page=abc'), activityFilterNames)).toEqual([
      "Filtre ignoré : la page « abc » n'est pas valide.",
      "Filtre ignoré : l'action « bidon » n'est pas valide.",
    ]);
    expect(ignoredFilters(activityQuerySchema, q('action=deleted&page=2'), activityFilterNames)).toEqual([]);
    // `action` is the activity's filter only: elsewhere it is a form's action, no filter to report.
    expect(ignoredFilters(ordersQuerySchema, q('action=bidon'))).toEqual([]);
    // Valid, empty or absent filters, and what is not a filter (a deletion to confirm), say nothing.
    expect(ignoredFilters(ordersQuerySchema, q(`du=5/3/2026&au=&modele=${MODEL}&confirmer=x`))).toEqual([]);
  });

  it('reads the days a number pad types in the filters, and names a period that ends before it starts', () => {
    expect(readOrdersQuery(q('du=01112026&au=26.11.26'))).toMatchObject({ from: '2026-11-01', to: '2026-11-26' });
    expect(ignoredFilters(ordersQuerySchema, q('du=01112026&au=26-11-2026'))).toEqual([]);
    expect(reversedRange('2026-11-30', '2026-11-01')).toEqual([
      'La date de début (30/11/2026) est après la date de fin (01/11/2026) : aucune date ne peut être dans cette période.',
    ]);
    expect(reversedRange('2026-11-01', '2026-11-30')).toEqual([]);
    expect(reversedRange('2026-11-01', '2026-11-01')).toEqual([]);
    expect(reversedRange('2026-11-30', null)).toEqual([]);
  });

  it('says a bookmarked page past the last is gone, in words that fit one page or several', () => {
    expect(pageBeyond(99, 4)).toEqual(["La page 99 n'existe plus : la liste compte 4 pages, voici la dernière."]);
    expect(pageBeyond(2, 1)).toEqual(["La page 2 n'existe plus : la liste tient sur une seule page."]);
    expect(pageBeyond(4, 4)).toEqual([]);
  });
});

const ID = '0b7c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';
const at = (path: Record<string, string | undefined>, query = '') => ({ params: path, url: new URL(`http://atelier.test/x?${query}`) });

describe('record page paths and queries', () => {
  it('reads an order page: its tab, its action, a checkpoint answer, the compatible search', () => {
    expect(readPage(orderPageSchema, at({ orderId: MODEL }, `onglet=procedure&action=point&id=${ID}&version=4`))).toMatchObject({
      orderId: MODEL.toLowerCase(),
      tab: 'procedure',
      action: 'point',
      checkpointId: ID,
      version: 4,
      confirmDelete: false,
      compatibleSearch: undefined,
    });
    // A search made with nothing typed is told apart from no search at all.
    expect(readPage(orderPageSchema, at({ orderId: ID }, 'onglet=informations-techniques&bva=%20%20')).compatibleSearch).toBe('');
    expect(readPage(orderPageSchema, at({ orderId: ID }, 'supprimer&confirmer-lecture=non'))).toMatchObject({
      tab: 'general',
      confirmDelete: true,
      confirmNoReading: true,
    });
  });

  it('answers no record for a path that is no id, and defaults for hostile values', () => {
    expect(readPage(orderPageSchema, at({ orderId: '..%2F..' }, 'onglet=__proto__&version=-1&id=1'))).toMatchObject({
      orderId: null,
      tab: 'general',
      checkpointId: null,
      version: 0,
    });
    expect(readPage(diagnosticPageSchema, at({ orderId: ID }, 'etape=valider2&onglet=courbes&lignes=1e9&courbe=x'))).toMatchObject({
      step: null,
      tab: 'courbes',
      moreRows: true,
      extraRows: 3,
      editCurve: null,
    });
    expect(readPage(diagnosticPageSchema, at({ orderId: ID }, 'etape=ajout&lignes=7'))).toMatchObject({
      step: 'ajout',
      tab: 'codes',
      moreRows: true,
      extraRows: 7,
    });
    expect(readPage(gearboxPageSchema, at({ modelId: ID }, 'onglet=documents&vue=toutes&procedure=nouvelle&confirmer=nope'))).toMatchObject({
      tab: 'documents',
      view: 'courbes',
      editProcedure: 'nouvelle',
      confirm: null,
      moreRows: false,
    });
    expect(readPage(gearboxPageSchema, at({ modelId: ID }, `procedure=${ID}`)).editProcedure).toBe(ID);
    expect(readPage(gearboxPageSchema, at({ modelId: ID }, 'procedure=autre')).editProcedure).toBeNull();
    expect(readPage(orderMeasurePageSchema, at({ orderId: ID, measureId: 'x' }))).toMatchObject({ orderId: ID, measureId: null });
  });

  it('tells a creation form (no child id) from a child id that is no id', () => {
    expect(readPage(outagePageSchema, at({ modelId: ID, outageId: undefined }, 'onglet=procedures'))).toMatchObject({
      modelId: ID,
      outageId: undefined,
      tab: 'general',
    });
    expect(readPage(outagePageSchema, at({ modelId: ID, outageId: ID }, 'onglet=procedures'))).toMatchObject({ outageId: ID, tab: 'procedures' });
    expect(readPage(outagePageSchema, at({ modelId: ID, outageId: 'a/b' })).outageId).toBeNull();
    expect(readPage(codeConditionsPageSchema, at({ orderId: ID, faultCodeId: undefined }, 'depuis=diagnostic&confirmer-fichier=1'))).toMatchObject({
      orderId: ID,
      faultCodeId: undefined,
      fromDiagnostic: true,
      confirmFile: null,
    });
  });

  it('reads the other pages: the base, a prefilled creation form, the sign-in', () => {
    expect(readQuery(basePageSchema, q(`onglet=composants&supprimer=${ID}&renommer=1`))).toMatchObject({
      tab: { kind: 'component' },
      deleteId: ID,
      renameId: null,
    });
    expect(readQuery(basePageSchema, q('onglet=inconnu')).tab.kind).toBe('condition');
    expect(readQuery(modelPrefillSchema, q('modele=<b>'))).toEqual({ modelId: '' });
    // A redirect target is never cut short: a cut path would be another page.
    expect(readQuery(signInPageSchema, q(`redirectTo=/stock${'x'.repeat(3000)}&view=forgot-password`)).redirectTo).toHaveLength(3006);
    expect(readQuery(signInPageSchema, q('view=autre')).forgot).toBe(false);
  });
});
