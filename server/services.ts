// The services of the one process, built once: what the GraphQL API, the file routes and the
// pages (`Astro.locals.services`) use. Nothing here imports the HTTP or GraphQL layers, so they
// can import this module without a cycle (issue 16).
import { createMailer, type Mailer } from './auth/mailer.ts';
import { createCounterStore } from './auth/counters.ts';
import { createRateLimiter, createSignInThrottle, createTurns } from './auth/rate-limit.ts';
import { createAuthService, type AuthService } from './auth/service.ts';
import { createMfaService, type MfaService } from './auth/mfa.ts';
import { createOidcService, type OidcService } from './auth/oidc.ts';
import { createPasswordlessService, type PasswordlessService } from './auth/passwordless.ts';
import { createSmsSender } from './auth/sms.ts';
import { createVault, createKeyring } from './auth/vault.ts';
import { createWebauthnService, type WebauthnService } from './auth/webauthn.ts';
import { basePermissions, createBaseService } from './base/service.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Viewer } from './auth/viewer.ts';
import { createGearboxDocumentsService, gearboxDocumentsPermissions } from './gearboxes/documents.ts';
import { createGearboxMeasuresService, gearboxMeasuresPermissions } from './gearboxes/measures.ts';
import { createRepairProceduresService, repairProceduresPermissions } from './gearboxes/procedures.ts';
import { createGearboxModelsService, gearboxModelsPermissions } from './gearboxes/service.ts';
import type { Logger } from './log.ts';
import { createOrderCurvesService, orderCurvesPermissions } from './repair-orders/curves.ts';
import { createFaultCodesService, faultCodesPermissions } from './repair-orders/fault-codes.ts';
import { createDiagnosticService, diagnosticPermissions } from './repair-orders/diagnostic.ts';
import { createOutageSheetService, outageSheetPermissions } from './repair-orders/outage-sheet.ts';
import { createOrderMeasuresService, orderMeasuresPermissions } from './repair-orders/measures.ts';
import { createOrderPhotosService, orderPhotosPermissions } from './repair-orders/photos.ts';
import { createOrderProcedureService, orderProcedurePermissions } from './repair-orders/procedure.ts';
import { ReportPdfThread } from './repair-orders/report-pdf-thread.ts';
import { createRepairOrdersService, repairOrdersPermissions } from './repair-orders/service.ts';
import { createSymptomsService, symptomsPermissions } from './repair-orders/symptoms.ts';
import { createStockService, stockPermissions } from './stock/service.ts';
import { createFileStore, type FileStore } from './storage/store.ts';
import { createUsersService, usersPermissions } from './users/service.ts';
import { auditPermissions, createAuditService } from './audit/service.ts';
import { createOverviewService, overviewPermissions } from './repair-orders/overview.ts';
import { bindViewer, type Bound, type PermissionTable } from './access.ts';

/** What Astro pages receive as `Astro.locals.services`. */
export type Services = {
  auth: AuthService;
  /** The second factor (TOTP and recovery codes). */
  mfa: MfaService;
  /** Identity providers (decision 029): the sign-in page's buttons and the provider routes. */
  oidc: OidcService;
  /** Sign-in links and one-time codes by e-mail and SMS (decision 030). */
  passwordless: PasswordlessService;
  /** Security keys (issue 18, item 2): the sign-in page and the security page verify in process. */
  webauthn: WebauthnService;
  /**
   * The domain services for one viewer (decision 061): each function checks the viewer against
   * its permission table before it runs. GraphQL builds them once per operation.
   */
  forViewer(viewer: Viewer | null): RequestServices;
  /** Stored files: pages save posted files and sign links through it. */
  files: FileStore;
  /** The intervention report's PDF, drawn in a thread of its own (decision 080); the report.pdf page reads the report first. */
  reportPdf: ReportPdfThread;
  /** `timeBudgetMs`: how long a page's reads may take (GraphQL's operation budget). */
  config: Pick<Config, 'publicUrl' | 'sessionSecret' | 'accessTokenExpiresIn' | 'storageMaxBytes'> & { timeBudgetMs: number };
};

/**
 * The domain services, each function taking the viewer first; edges reach them bound (`forViewer`).
 * `watch`: the embedded database's LISTEN, for what a service may keep beside it (decision 076).
 */
export function createDomainServices(deps: { db: Database['db']; files: FileStore; auth: AuthService; watch?: Database['listen'] }) {
  const { db, files, auth } = deps;
  const repairProcedures = createRepairProceduresService({ db });
  const gearboxModels = createGearboxModelsService({ db, files, watch: deps.watch });
  const repairOrders = createRepairOrdersService({ db, files });
  const faultCodes = createFaultCodesService({ db });
  const symptoms = createSymptomsService({ db });
  const diagnostic = createDiagnosticService({ db, gearboxModels });
  return {
    users: createUsersService({ db, auth }),
    base: createBaseService({ db }),
    gearboxModels,
    repairProcedures,
    gearboxMeasures: createGearboxMeasuresService({ db, files }),
    gearboxDocuments: createGearboxDocumentsService({ db, files }),
    stock: createStockService({ db }),
    repairOrders,
    faultCodes,
    orderCurves: createOrderCurvesService({ db, files }),
    orderMeasures: createOrderMeasuresService({ db, files }),
    symptoms,
    diagnostic,
    orderProcedure: createOrderProcedureService({ db }),
    /** The audit trail, read only (decision 034): events are written by the services' own transactions. */
    audit: createAuditService({ db }),
    /** The workshop at a glance (issue 32): the orders' figures over a period. */
    overview: createOverviewService({ db }),
    /** The customer's outage sheet (issue 32, decision 090), read from the services above. */
    outageSheet: createOutageSheetService({ repairOrders, faultCodes, symptoms, diagnostic, gearboxModels }),
    orderPhotos: createOrderPhotosService({ db, files }),
  };
}
export type DomainServices = ReturnType<typeof createDomainServices>;

/** Each domain service's table: who may call each of its functions (decision 061). */
export const permissions = {
  users: usersPermissions,
  base: basePermissions,
  gearboxModels: gearboxModelsPermissions,
  repairProcedures: repairProceduresPermissions,
  gearboxMeasures: gearboxMeasuresPermissions,
  gearboxDocuments: gearboxDocumentsPermissions,
  stock: stockPermissions,
  repairOrders: repairOrdersPermissions,
  faultCodes: faultCodesPermissions,
  orderCurves: orderCurvesPermissions,
  orderMeasures: orderMeasuresPermissions,
  symptoms: symptomsPermissions,
  diagnostic: diagnosticPermissions,
  orderProcedure: orderProcedurePermissions,
  audit: auditPermissions,
  overview: overviewPermissions,
  outageSheet: outageSheetPermissions,
  orderPhotos: orderPhotosPermissions,
} as const satisfies { [K in keyof DomainServices]: PermissionTable<DomainServices[K]> };

/** The domain services as one viewer reaches them. */
export type ViewerServices = { readonly [K in keyof DomainServices]: Bound<DomainServices[K]> };
/** One request's services: the process's, and the domain's bound to the request's viewer (pages, GraphQL). */
export type RequestServices = Services & ViewerServices;

export function bindDomain(domain: DomainServices, viewer: Viewer | null): ViewerServices {
  const bound: Partial<Record<keyof DomainServices, unknown>> = {};
  for (const name of Object.keys(domain) as (keyof DomainServices)[]) {
    bound[name] = bindViewer(domain[name] as never, permissions[name] as never, viewer);
  }
  return bound as ViewerServices;
}

/** The services, and what the server keeps to close them. */
export function createServices(options: { config: Config; database: Database; logger: Logger }): {
  services: Services;
  mailer: Mailer;
  /** The domain services unbound: for tests and scripts that act as no one in particular. */
  domain: DomainServices;
} {
  const { config, database, logger } = options;
  const db = database.db;
  // Limits and throttles count where every instance sees them: PostgreSQL's table, or this
  // process's memory beside the embedded database it alone opens (decision 053).
  const counters = createCounterStore(database, config.sessionSecret);
  const limiter = createRateLimiter(counters);
  const vault = createVault(db, createKeyring(config.encryptionKeys));
  const mailer = createMailer({
    db,
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    sms: createSmsSender({ sms: config.sms, dataDir: config.dataDir, logger }),
    retry: config.messageRetry,
    logger,
    vault,
  });
  const auth = createAuthService({
    db,
    mailer,
    publicUrl: config.publicUrl,
    jwtSecret: config.jwtSecret,
    accessTokenExpiresIn: config.accessTokenExpiresIn,
    limiter,
    limits: config.rateLimits,
    throttle: createSignInThrottle(config.signInThrottle, counters, 'sign-in', logger),
    secondFactorCeiling: createSignInThrottle(config.secondFactorCeiling, counters, 'second-factor', logger),
    turns: createTurns(counters),
    methods: config.authMethods,
    vault,
  });
  const files = createFileStore({ db, config, logger });
  // Only the embedded database is this process's alone: PostgreSQL's other instances write unseen.
  const domain = createDomainServices({ db, files, auth, watch: database.kind === 'pglite' ? database.listen : undefined });
  let signedOut: RequestServices | undefined;
  const services: Services = {
    auth,
    mfa: createMfaService(auth),
    oidc: createOidcService({ auth, providers: config.authProviders }),
    passwordless: createPasswordlessService(auth),
    webauthn: createWebauthnService({ auth, rp: config.webauthn, origin: new URL(config.publicUrl).origin }),
    // Signed out is the same for every request: built once, not on each page's way in.
    forViewer: (viewer) => (viewer ? { ...services, ...bindDomain(domain, viewer) } : (signedOut ??= { ...services, ...bindDomain(domain, null) })),
    files,
    reportPdf: new ReportPdfThread({ onLost: (error) => logger.error('report PDF thread lost', { error: error.message }) }),
    config: {
      publicUrl: config.publicUrl,
      sessionSecret: config.sessionSecret,
      accessTokenExpiresIn: config.accessTokenExpiresIn,
      storageMaxBytes: config.storageMaxBytes,
      timeBudgetMs: config.graphqlLimits.timeBudgetMs,
    },
  };
  return { services, mailer, domain };
}
