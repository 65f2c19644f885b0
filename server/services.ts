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
import { createBaseService, type BaseService } from './base/service.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Viewer } from './auth/viewer.ts';
import { createDocumentsService, type DocumentsService } from './gearboxes/documents.ts';
import { createMeasuresService, type MeasuresService } from './gearboxes/measures.ts';
import { createProceduresService, type ProceduresService } from './gearboxes/procedures.ts';
import { createGearboxesService, type GearboxesService } from './gearboxes/service.ts';
import type { Logger } from './log.ts';
import { createOrderCurvesService, type OrderCurvesService } from './repair-orders/curves.ts';
import { createFaultCodesService, type FaultCodesService } from './repair-orders/fault-codes.ts';
import { createDiagnosticFlowService, type DiagnosticFlowService } from './repair-orders/flow.ts';
import { createOrderMeasuresService, type OrderMeasuresService } from './repair-orders/measures.ts';
import { createOrderProcedureService, type OrderProcedureService } from './repair-orders/procedure.ts';
import { createRepairOrdersService, type RepairOrdersService } from './repair-orders/service.ts';
import { createSymptomsService, type SymptomsService } from './repair-orders/symptoms.ts';
import { createStockService, type StockService } from './stock/service.ts';
import { createFileStore, type FileStore } from './storage/store.ts';
import { createUsersService, type UsersService } from './users/service.ts';
import { createAuditService, type AuditService } from './audit/service.ts';

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
  users: UsersService;
  base: BaseService;
  gearboxes: GearboxesService;
  procedures: ProceduresService;
  measures: MeasuresService;
  documents: DocumentsService;
  stock: StockService;
  repairOrders: RepairOrdersService;
  faultCodes: FaultCodesService;
  orderCurves: OrderCurvesService;
  orderMeasures: OrderMeasuresService;
  symptoms: SymptomsService;
  flow: DiagnosticFlowService;
  orderProcedure: OrderProcedureService;
  /** The audit trail, read only (decision 034): events are written by the services' own transactions. */
  audit: AuditService;
  /** Stored files: pages save posted files and sign links through it. */
  files: FileStore;
  /**
   * The GraphQL API in process: pages call it without a network hop, as the viewer the session
   * middleware found (no token to mint and check again, no second session query).
   */
  graphql: { fetch(path: string, init: RequestInit | undefined, viewer: Viewer | null): Promise<Response> };
  config: Pick<Config, 'publicUrl' | 'sessionSecret' | 'accessTokenExpiresIn' | 'storageMaxBytes'>;
};

/** The services, and what the server keeps to close them. */
export function createServices(options: { config: Config; database: Database; logger: Logger; graphqlFetch: Services['graphql']['fetch'] }): {
  services: Services;
  mailer: Mailer;
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
  const procedures = createProceduresService({ db });
  const gearboxes = createGearboxesService({ db });
  const services: Services = {
    auth,
    mfa: createMfaService(auth),
    oidc: createOidcService({ auth, providers: config.authProviders }),
    passwordless: createPasswordlessService(auth),
    webauthn: createWebauthnService({ auth, rp: config.webauthn, origin: new URL(config.publicUrl).origin }),
    procedures,
    users: createUsersService({ db }),
    base: createBaseService({ db }),
    gearboxes,
    measures: createMeasuresService({ db }),
    documents: createDocumentsService({ db, files }),
    files,
    stock: createStockService({ db }),
    repairOrders: createRepairOrdersService({ db, files }),
    faultCodes: createFaultCodesService({ db }),
    orderCurves: createOrderCurvesService({ db, files }),
    orderMeasures: createOrderMeasuresService({ db, files }),
    symptoms: createSymptomsService({ db }),
    flow: createDiagnosticFlowService({ db, procedures, gearboxes }),
    orderProcedure: createOrderProcedureService({ db }),
    audit: createAuditService({ db }),
    graphql: { fetch: options.graphqlFetch },
    config: {
      publicUrl: config.publicUrl,
      sessionSecret: config.sessionSecret,
      accessTokenExpiresIn: config.accessTokenExpiresIn,
      storageMaxBytes: config.storageMaxBytes,
    },
  };
  return { services, mailer };
}
