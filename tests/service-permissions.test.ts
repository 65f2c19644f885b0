// Services own their permissions (issue 31, decision 061): every function of every domain service,
// called as every role and as no one, is run or refused as SPEC §2 and §6 say. The expectations are
// written here from the SPEC, not read from the tables under test (server/services.ts).
import { describe, expect, it } from 'vitest';
import { roles, type Role } from '#lib/roles.ts';
import { bindViewer } from '#server/access.ts';
import type { Viewer } from '#server/auth/viewer.ts';
import { DomainError } from '#server/errors.ts';
import { bindDomain, createDomainServices, type DomainServices, permissions } from '#server/services.ts';

const ALL: Role[] = ['app_admin', 'diagnostician', 'mechanic', 'commercial'];
/** Orders, dossiers and the base are written by admins and diagnosticians (SPEC §2.7, §2.9, §6). */
const WRITERS: Role[] = ['app_admin', 'diagnostician'];
/** The stock is read and kept by admins, diagnosticians and commercials, never mechanics (SPEC §2.1, §6). */
const STOCK: Role[] = ['app_admin', 'diagnostician', 'commercial'];
/** The procedure is followed by the mechanics and those who write orders (SPEC §2.7). */
const FOLLOWERS: Role[] = ['app_admin', 'diagnostician', 'mechanic'];
/** Only the admin: the users screen (SPEC §2.9), reopening a closed order (SPEC §4). */
const ADMIN: Role[] = ['app_admin'];
/** The workshop at a glance (issue 32): those who run the workshop and its diagnostics. */
const OVERVIEW: Role[] = ['app_admin', 'diagnostician'];

const expected: { [S in keyof DomainServices]: { [F in keyof DomainServices[S]]: Role[] } } = {
  // Reading an account is checked per row in the service (one's own, or an admin's); updating too.
  users: { get: ALL, list: ADMIN, page: ADMIN, count: ADMIN, insert: ADMIN, update: ALL, remove: ADMIN, signOut: ADMIN, resendAccountEmail: ADMIN },
  base: { list: ALL, insert: WRITERS, rename: WRITERS, remove: WRITERS },
  gearboxModels: {
    list: ALL,
    count: ALL,
    page: ALL,
    catalogue: ALL,
    get: ALL,
    insert: WRITERS,
    update: WRITERS,
    remove: WRITERS,
    codesOf: ALL,
    codesOfModels: ALL,
    insertDoctorCode: WRITERS,
    removeDoctorCode: WRITERS,
    insertGearboxCode: WRITERS,
    removeGearboxCode: WRITERS,
    errorCodesOf: ALL,
    orderCountOf: ALL,
    insertErrorCode: WRITERS,
    removeErrorCode: WRITERS,
    outagesOf: ALL,
    retainedElsewhereOf: ALL,
    getOutage: ALL,
    getOutages: ALL,
    insertOutage: WRITERS,
    updateOutage: WRITERS,
    removeOutage: WRITERS,
    mostFrequentOutages: OVERVIEW,
  },
  repairProcedures: { listOf: ALL, get: ALL, insert: WRITERS, update: WRITERS, remove: WRITERS, ofOutage: ALL, setOutageProcedures: WRITERS },
  gearboxMeasures: { listOf: ALL, get: ALL, insert: WRITERS, update: WRITERS, remove: WRITERS },
  gearboxDocuments: { ofModel: ALL, ofOutage: ALL, ofMeasure: ALL, get: ALL, insert: WRITERS, update: WRITERS, remove: WRITERS },
  stock: {
    list: STOCK,
    count: STOCK,
    counts: STOCK,
    racks: STOCK,
    get: STOCK,
    movementsOf: STOCK,
    insert: STOCK,
    move: STOCK,
    changeCondition: STOCK,
    remove: STOCK,
    rackCounts: STOCK,
  },
  repairOrders: { list: ALL, count: ALL, page: ALL, get: ALL, referents: ALL, insert: WRITERS, update: WRITERS, remove: WRITERS },
  faultCodes: { faultCodesOf: ALL, setFaultCodeReading: WRITERS, insertFaultCode: WRITERS, updateFaultCode: WRITERS, removeFaultCode: WRITERS },
  orderCurves: { curvesOf: ALL, importsOf: ALL, insertCurve: WRITERS, updateCurve: WRITERS, removeCurve: WRITERS, insertFile: WRITERS, removeFile: WRITERS },
  orderMeasures: {
    measuresOf: ALL,
    get: ALL,
    setMeasuresDone: WRITERS,
    insertMeasure: WRITERS,
    insertDossierMeasures: WRITERS,
    updateMeasure: WRITERS,
    removeMeasure: WRITERS,
    attachFile: WRITERS,
    removeFile: WRITERS,
  },
  symptoms: { symptomsOf: ALL, insertSymptom: WRITERS, updateSymptom: WRITERS, removeSymptom: WRITERS },
  diagnostic: {
    candidatesOf: ALL,
    sharedSignsOf: ALL,
    chosenOutagesOf: ALL,
    proceduresOf: ALL,
    chooseOutages: WRITERS,
    chooseProcedures: WRITERS,
    addProcedure: WRITERS,
    addNewProcedure: WRITERS,
    markVisualised: WRITERS,
    validate: WRITERS,
    // The diagnostic page's guide is shown to whoever reads it; only those who use the page hide it.
    guideHidden: ALL,
    setGuideHidden: WRITERS,
    reopen: WRITERS,
  },
  orderProcedure: { checkpointsOf: ALL, checkpointsOfProcedure: ALL, followedOf: ALL, eventsOf: ALL, answer: FOLLOWERS, close: FOLLOWERS, reopen: ADMIN },
  // Which history a role may read is checked per scope in the service (tests/audit.test.ts).
  audit: { list: ALL, count: ALL },
  overview: { orderFigures: OVERVIEW },
  // Issue 32, decision 090: the sheet handed to the customer, by those who diagnose or talk to customers.
  outageSheet: { sheetOf: ['app_admin', 'diagnostician', 'commercial'] },
  orderPhotos: { photosOf: ALL, addToCheckpoint: FOLLOWERS, addToMeasure: WRITERS, removeFromCheckpoint: FOLLOWERS, removeFromMeasure: WRITERS },
};

// The services as built, over nothing: what is checked is who reaches a function, not what it does.
const domain = createDomainServices({ db: {} as never, files: {} as never, auth: {} as never });
const viewerAs = (role: Role): Viewer => ({ id: `viewer-${role}`, role, sessionId: `session-${role}` });

/** The service with each function replaced by one that reports what it was given. */
const recording = (name: keyof DomainServices) =>
  Object.fromEntries(Object.keys(domain[name]).map((fn) => [fn, (viewer: Viewer, ...args: unknown[]) => ({ fn, viewer, args })]));

/** The refusal of taking `fn` from the service bound to `viewer`, or null when it is given. */
function refusalOf(name: keyof DomainServices, fn: string, viewer: Viewer | null) {
  const bound = bindViewer(recording(name) as never, permissions[name] as never, viewer) as Record<string, (...args: unknown[]) => unknown>;
  try {
    const call = bound[fn]!;
    expect(call('un', 2)).toEqual({ fn, viewer, args: ['un', 2] });
    return null;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { kind: error.kind, message: error.message };
  }
}

describe('every domain service function, as every role', () => {
  for (const name of Object.keys(expected) as (keyof DomainServices)[]) {
    it(`${name}: each function runs for the roles SPEC §6 names, with the viewer first, and is refused to the others`, () => {
      // Every function the service has is in the SPEC table, and nothing else.
      expect(Object.keys(domain[name]).sort()).toEqual(Object.keys(expected[name]).sort());
      for (const [fn, allowed] of Object.entries(expected[name]) as [string, Role[]][]) {
        for (const role of roles) {
          const refusal = refusalOf(name, fn, viewerAs(role));
          expect(refusal, `${name}.${fn} as ${role}`).toEqual(allowed.includes(role) ? null : { kind: 'forbidden', message: 'Accès refusé' });
        }
        expect(refusalOf(name, fn, null), `${name}.${fn} signed out`).toEqual({ kind: 'unauthenticated', message: 'Accès refusé' });
      }
    });
  }

  it('names every domain service in the test', () => {
    expect(Object.keys(expected).sort()).toEqual(Object.keys(domain).sort());
  });

  it('refuses before the arguments are read: a refused call never evaluates them', () => {
    const bound = bindViewer(recording('repairOrders') as never, permissions.repairOrders as never, viewerAs('mechanic')) as Record<
      string,
      (input: unknown) => unknown
    >;
    let read = false;
    expect(() => bound.insert!((read = true))).toThrow('Accès refusé');
    expect(read).toBe(false);
  });
});

// Decision 090: the sheet reads the order, its codes, symptoms, diagnostic and dossier as its viewer.
describe('a service that reads other services', () => {
  it('refuses the outage sheet to a commercial once a service it reads is refused to him', async () => {
    const table = permissions.repairOrders as Record<string, string>;
    const before = table.get!;
    table.get = 'manageOrders';
    try {
      // Over nothing: refused before any read, or the empty database object would fail otherwise.
      await expect(bindDomain(domain, viewerAs('commercial')).outageSheet.sheetOf('un')).rejects.toMatchObject({ kind: 'forbidden', message: 'Accès refusé' });
    } finally {
      table.get = before;
    }
  });
});
