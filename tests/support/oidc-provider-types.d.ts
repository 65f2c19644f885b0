// The part of oidc-provider's API the test provider uses (the package ships no types).
declare module 'oidc-provider' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';

  type Context = {
    method: string;
    path: string;
    req: IncomingMessage;
    res: ServerResponse;
    respond: boolean;
    oidc: { provider: Provider; client?: { clientId: string }; session?: { accountId?: string } };
  };
  type Grant = { addOIDCScope(scope: string): void; save(): Promise<string> };

  export type Configuration = {
    clients: Record<string, unknown>[];
    pkce?: { required: (ctx: Context, client: unknown) => boolean };
    jwks?: { keys: Record<string, unknown>[] };
    cookies?: { keys: string[] };
    claims?: Record<string, string[]>;
    conformIdTokenClaims?: boolean;
    ttl?: Record<string, number>;
    features?: Record<string, { enabled: boolean }>;
    interactions?: { url: (ctx: Context, interaction: { uid: string }) => string };
    loadExistingGrant?: (ctx: Context) => Promise<Grant | undefined>;
    findAccount: (ctx: Context, sub: string) => Promise<{ accountId: string; claims: () => Promise<Record<string, unknown>> } | undefined>;
  };

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    Grant: new (init: {
      clientId: string;
      accountId: string;
    }) => Grant;
    use(middleware: (ctx: Context, next: () => Promise<void>) => Promise<void>): this;
    listen(port: number, host: string): Server;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
}
