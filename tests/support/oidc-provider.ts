// A real OpenID provider (the `oidc-provider` package) on 127.0.0.1 for the identity provider
// tests (decision 029): one confidential client, PKCE required, and an interaction that signs
// in whichever account the test chose, with no page to fill in. `sign` makes ID tokens with
// the provider's own key, as a client that got one elsewhere would bring them.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import Provider, { type Configuration } from 'oidc-provider';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';

export type TestAccount = { sub: string; email?: string; email_verified?: boolean; name?: string };

export type TestProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next interaction signs in, or the error it answers with. */
  next: { account: string } | { error: string };
  accounts: Map<string, TestAccount>;
  /** An ID token for `claims`, signed with the provider's key unless `key` says otherwise. */
  sign(claims: JWTPayload, options?: { key?: CryptoKey; kid?: string; alg?: string }): Promise<string>;
  /** Another RSA key, which the provider never published. */
  strangerKey: CryptoKey;
  close(): Promise<void>;
};

/** The client the provider knows: the app's AUTH_PROVIDER_<NAME>_CLIENT_ID and _CLIENT_SECRET. */
export const testClient = { id: 'atelier-bva', secret: 'atelier-bva-secret-of-the-test-provider' };

export async function startOidcProvider(options: { port: number; redirectUris: string[] }): Promise<TestProvider> {
  const issuer = `http://127.0.0.1:${options.port}`;
  const { id: clientId, secret: clientSecret } = testClient;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const stranger = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, TestAccount>();

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    jwks: { keys: [jwk as never] },
    cookies: { keys: ['cookie-key-of-the-test-provider'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // Like Google and Entra, the ID token itself carries the e-mail and the name.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // The test client is trusted: no consent screen.
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
    findAccount: async (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ ...account }) };
    },
  };
  const provider = new Provider(issuer, configuration);
  const state: TestProvider = {
    issuer,
    clientId,
    clientSecret,
    next: { error: 'access_denied' },
    accounts,
    strangerKey: stranger.privateKey,
    sign: (claims, signOptions = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, aud: clientId, iat: now, exp: now + 300, jti: randomUUID(), ...claims })
        .setProtectedHeader({ alg: signOptions.alg ?? 'RS256', kid: signOptions.kid ?? 'test-key' })
        .sign(signOptions.key ?? privateKey);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  // The login page of a real provider, answered at once for the account the test chose.
  provider.use(async (ctx, next) => {
    if (ctx.method !== 'GET' || !ctx.path.startsWith('/interaction/')) return next();
    const choice = state.next;
    const result = 'account' in choice ? { login: { accountId: choice.account } } : { error: choice.error, error_description: 'The user said no' };
    await provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
    ctx.respond = false;
  });
  const server: Server = provider.listen(options.port, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return state;
}

/**
 * A browser without a page: follows redirects and keeps each origin's cookies, until `stop`
 * says a Location is where the test wants to look (the app's landing page by default).
 */
export function createBrowser() {
  const jars = new Map<string, Map<string, string>>();
  const jarOf = (url: URL) => jars.get(url.origin) ?? jars.set(url.origin, new Map()).get(url.origin)!;

  async function open(url: string): Promise<{ status: number; location: string | null }> {
    const target = new URL(url);
    const jar = jarOf(target);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(target, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair!.trim().split('=');
      const gone = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (gone) jar.delete(name!);
      else jar.set(name!, value.join('='));
    }
    await res.arrayBuffer();
    const location = res.headers.get('location');
    return { status: res.status, location: location ? new URL(location, target).href : null };
  }

  return {
    open,
    cookies: (origin: string) => jarOf(new URL(origin)),
    /** Follows redirects from `url`; returns the first Location `stop` accepts, or the last one. */
    async follow(url: string, stop: (location: URL) => boolean): Promise<string> {
      let current = url;
      for (let hop = 0; hop < 20; hop++) {
        const { location } = await open(current);
        if (!location) return current;
        if (stop(new URL(location))) return location;
        current = location;
      }
      throw new Error(`too many redirects from ${url}`);
    },
  };
}
