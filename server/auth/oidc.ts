import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { z } from 'zod';
import { challenges, securityKeys, userProviders, users } from '#server/db/schema/index.ts';
import { recordSignUp } from '#server/audit/auth-events.ts';
import { conflict, DomainError } from '#server/errors.ts';
import { isLoopback, type AuthProvider } from '#server/config.ts';
import { hasReason } from '#lib/errors.ts';
import { HOME, SIGN_IN } from '#lib/routes.ts';
import { authErrors, type AuthService, type Caller, type Session, type SessionRow, type UserRow } from './service.ts';
import { randomToken, sha256 } from './tokens.ts';
import { OIDC_STATE_KIND, OIDC_VERIFIER_CONTEXT, VaultError } from './vault.ts';

/** A round trip through the provider must come back within this (the state's lifetime). */
export const ROUND_TRIP_MS = 10 * 60_000;
/** Discovery documents are read again after this; keys follow their own cache (jose's). */
const DISCOVERY_MS = 24 * 3_600_000;
const FETCH_TIMEOUT_MS = 10_000;
/** Clocks of the provider and ours may differ by this much. */
const CLOCK_TOLERANCE_S = 30;
/** Signatures with the provider's public keys only: never `none` nor a shared secret. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const STATE_KIND = OIDC_STATE_KIND;

/** The errors of this module, in hasura-auth's words where it has one (decision 029). */
export const oidcErrors = {
  /** hasura-auth answers any ID token it cannot accept with invalid-request. */
  invalidIdToken: () => new DomainError('invalid', 'invalid-request', 'The ID token is invalid or expired'),
  invalidState: () => new DomainError('invalid', 'invalid-state', 'Invalid state'),
  providerError: () => new DomainError('invalid', 'oauth-provider-error', 'Provider returned an error'),
  // Sic: hasura-auth's wire name.
  tokenExchangeFailed: () => new DomainError('invalid', 'oauth-token-echange-failed', 'Failed to exchange token'),
  profileFetchFailed: () => new DomainError('invalid', 'oauth-profile-fetch-failed', 'Failed to get user profile'),
  // Ours: hasura-auth has no word for a provider that does not answer.
  providerUnavailable: () => new DomainError('unavailable', 'oauth-provider-unavailable', 'The identity provider could not be reached'),
  alreadyLinked: () => conflict('provider-account-already-linked', 'This provider account is linked to another user'),
  emailDomainNotAllowed: () => new DomainError('forbidden', 'email-domain-not-allowed', 'This e-mail domain may not sign in with this provider'),
};

/** What the sign-in page shows: one button per provider. */
export type ProviderButton = { name: string; label: string };

/** The identity an ID token proves. */
export type ProviderProfile = { sub: string; email: string | null; emailVerified: boolean; name: string | null };

type Discovery = {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  tokenAuth: 'client_secret_basic' | 'client_secret_post';
  keys: ReturnType<typeof createRemoteJWKSet>;
  readAt: number;
};

/** What the state of a round trip keeps, hashed where it can be, the verifier sealed (decision 050). */
type RoundTrip = {
  provider: string;
  redirectTo: string;
  nonceHash: string;
  verifier: string;
  bindingHash: string;
  displayName?: string;
  locale?: string;
  /** The signed-in user linking the provider account (hasura-auth's `connect`). */
  connectUserId?: string;
};

const discoverySchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  jwks_uri: z.url(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
});

export type OidcService = ReturnType<typeof createOidcService>;

export function createOidcService(deps: { auth: AuthService; providers: AuthProvider[] }) {
  const { auth } = deps;
  // Accounts a provider's first sign-in creates get the self-registration role, disabled.
  const { db, limiter, limits, publicUrl, signUpRole } = auth;
  const byName = new Map(deps.providers.map((p) => [p.name, p]));
  const discoveries = new Map<string, Promise<Discovery>>();

  const providerOf = (name: string): AuthProvider => {
    const p = byName.get(name);
    if (!p) throw authErrors.disabledEndpoint();
    return p;
  };
  const callbackUrl = (p: AuthProvider) => `${publicUrl}/api/auth/signin/provider/${p.name}/callback`;

  /** The provider's discovery document (OpenID Connect Discovery 1.0), kept a day; a failure is not kept. */
  function discover(p: AuthProvider): Promise<Discovery> {
    const known = discoveries.get(p.name);
    if (known) return known.then((d) => (Date.now() - d.readAt < DISCOVERY_MS ? d : rediscover(p)));
    return rediscover(p);
  }

  function rediscover(p: AuthProvider): Promise<Discovery> {
    const pending = readDiscovery(p);
    discoveries.set(p.name, pending);
    pending.catch(() => {
      if (discoveries.get(p.name) === pending) discoveries.delete(p.name);
    });
    return pending;
  }

  async function readDiscovery(p: AuthProvider): Promise<Discovery> {
    let doc: z.infer<typeof discoverySchema>;
    try {
      const res = await fetch(`${p.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      if (!res.ok) throw new Error(`discovery answered ${res.status}`);
      doc = discoverySchema.parse(await res.json());
    } catch {
      throw oidcErrors.providerUnavailable();
    }
    // A document that names another issuer, or sends the browser or the code over plain http, is not the provider's.
    const secure = (value: string) => {
      const url = new URL(value);
      return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname));
    };
    if (doc.issuer !== p.issuer || ![doc.authorization_endpoint, doc.token_endpoint, doc.jwks_uri].every(secure)) {
      throw oidcErrors.providerUnavailable();
    }
    const methods = doc.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    return {
      authorizationEndpoint: doc.authorization_endpoint,
      tokenEndpoint: doc.token_endpoint,
      tokenAuth: methods.includes('client_secret_basic') || !methods.includes('client_secret_post') ? 'client_secret_basic' : 'client_secret_post',
      keys: createRemoteJWKSet(new URL(doc.jwks_uri), { timeoutDuration: FETCH_TIMEOUT_MS }),
      readAt: Date.now(),
    };
  }

  /**
   * The claims of an ID token the provider signed for us: its keys, its issuer, our client id as
   * audience, not expired, and a nonce that `nonceMatches` accepts.
   */
  async function verifyIdToken(
    p: AuthProvider,
    idToken: string,
    nonceMatches: (nonce: unknown) => boolean,
  ): Promise<{ profile: ProviderProfile; expiresAt: number }> {
    const { keys } = await discover(p);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, {
        issuer: p.issuer,
        audience: p.clientId,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['sub', 'iat', 'exp'],
      }));
    } catch (error) {
      if (isTokenFault(error)) throw oidcErrors.invalidIdToken();
      throw oidcErrors.providerUnavailable();
    }
    // OpenID Connect Core 3.1.3.7: a token for several audiences must name us as its party.
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== p.clientId) throw oidcErrors.invalidIdToken();
    if (!nonceMatches(payload.nonce)) throw oidcErrors.invalidIdToken();
    return { profile: profileOf(payload), expiresAt: payload.exp! };
  }

  /**
   * The user behind a provider account: the linked one; else the account of the same e-mail when
   * the provider vouches for it (linked now); else a new account, disabled with the least role
   * until an admin enables it, like a self-registration (decision 029).
   */
  async function userForProfile(
    p: AuthProvider,
    profile: ProviderProfile,
    caller: Caller,
    options: { displayName?: string; locale?: string } = {},
  ): Promise<UserRow> {
    requireAllowedDomain(p, profile);
    const linked = await linkedUser(p.name, profile.sub);
    if (linked) return auth.requireActive(linked);
    const existing = profile.email ? await auth.findUserByEmail(profile.email) : undefined;
    if (existing) {
      // Only the provider's word that the address is its user's lets it into that account.
      if (!profile.emailVerified) throw authErrors.emailInUse();
      const u = await auth.requireActive(existing);
      // An address never proven here, on an account someone may already enter (a password set
      // at sign-up by whoever typed the address), is not yet the provider user's: account
      // pre-hijacking. An admin's new account, with no way in yet, is.
      if (!u.emailVerified && (await hasWayIn(u))) throw authErrors.emailInUse();
      // An account with a second factor is not joined by an address alone: its user links the
      // provider from a signed-in, elevated session (/link/idtoken).
      if (await auth.hasSecondFactor(u)) throw authErrors.emailInUse();
      await link(p, profile.sub, u.id, caller);
      if (u.emailVerified) return u;
      const [proven] = await db.update(users).set({ emailVerified: true, updatedAt: new Date() }).where(eq(users.id, u.id)).returning();
      return proven!;
    }
    await limiter.hit('signup-ip', caller.ip, limits.signUpPerIp);
    const created = await db.transaction(async (tx) => {
      const [u] = await tx
        .insert(users)
        .values({
          email: profile.email,
          emailVerified: !!profile.email && profile.emailVerified,
          displayName: options.displayName ?? profile.name ?? profile.email ?? '',
          locale: options.locale ?? 'fr',
          defaultRole: signUpRole,
          disabled: true,
        })
        .onConflictDoNothing()
        .returning();
      if (!u) return undefined;
      await tx.insert(userProviders).values({ userId: u.id, providerId: p.name, providerUserId: profile.sub });
      await recordSignUp(tx, u);
      return u;
    });
    if (!created) throw authErrors.emailInUse();
    // Created as a self-registration is: an admin enables it; until then, the answer of a disabled account.
    throw authErrors.disabledUser();
  }

  function requireAllowedDomain(p: AuthProvider, profile: ProviderProfile) {
    if (!p.emailDomains) return;
    const domain = profile.email?.split('@')[1];
    if (!profile.emailVerified || !domain || !p.emailDomains.includes(domain)) throw oidcErrors.emailDomainNotAllowed();
  }

  /** Whether anyone can already sign in to `u`: a password, a security key, another provider account. */
  async function hasWayIn(u: UserRow): Promise<boolean> {
    if (u.passwordHash) return true;
    const [key] = await db.select({ id: securityKeys.id }).from(securityKeys).where(eq(securityKeys.userId, u.id)).limit(1);
    const [other] = await db.select({ id: userProviders.id }).from(userProviders).where(eq(userProviders.userId, u.id)).limit(1);
    return !!key || !!other;
  }

  /**
   * An ID token a client brings is good once (kept hashed until it expires): one that leaked
   * from a client's logs or storage opens nothing.
   */
  async function spendIdToken(idToken: string, expiresAt: number): Promise<void> {
    const [row] = await db
      .insert(challenges)
      .values({ kind: 'idToken', keyHash: sha256(idToken), data: {}, usedAt: new Date(), expiresAt: new Date(expiresAt * 1000) })
      .onConflictDoNothing()
      .returning({ id: challenges.id });
    if (!row) throw oidcErrors.invalidIdToken();
  }

  async function linkedUser(provider: string, sub: string): Promise<UserRow | undefined> {
    const [row] = await db
      .select({ user: users })
      .from(userProviders)
      .innerJoin(users, eq(users.id, userProviders.userId))
      .where(and(eq(userProviders.providerId, provider), eq(userProviders.providerUserId, sub)))
      .limit(1);
    return row?.user;
  }

  /**
   * Links the provider account to `userId`; already linked to it is fine, to another user is not.
   * A new link is a new way in: recorded and announced to the account (decision 056).
   */
  async function link(p: AuthProvider, sub: string, userId: string, caller: Caller): Promise<void> {
    const added = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(userProviders)
        .values({ userId, providerId: p.name, providerUserId: sub })
        .onConflictDoNothing()
        .returning({ id: userProviders.id });
      const [account] = row ? await tx.select().from(users).where(eq(users.id, userId)) : [];
      if (account) await auth.announceWayIn(tx, account, 'providerLinked', { ip: caller.ip, name: p.label });
      return Boolean(account);
    });
    if (added) auth.mailer.nudge();
    const owner = await linkedUser(p.name, sub);
    if (owner?.id !== userId) throw oidcErrors.alreadyLinked();
  }

  /** The code for tokens at the provider's token endpoint, with the PKCE verifier of the round trip. */
  async function exchangeCode(p: AuthProvider, code: string, verifier: string): Promise<string> {
    const { tokenEndpoint, tokenAuth } = await discover(p);
    const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callbackUrl(p), code_verifier: verifier });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (tokenAuth === 'client_secret_basic') {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(p.clientId)}:${encodeURIComponent(p.clientSecret)}`).toString('base64')}`;
    } else {
      body.set('client_id', p.clientId);
      body.set('client_secret', p.clientSecret);
    }
    try {
      const res = await fetch(tokenEndpoint, { method: 'POST', headers, body, redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      const tokens = (await res.json()) as { id_token?: unknown };
      if (res.ok && typeof tokens.id_token === 'string') return tokens.id_token;
    } catch {
      // Unreachable, too slow or not JSON: the same answer as a refusal.
    }
    throw oidcErrors.tokenExchangeFailed();
  }

  /** `redirectTo` with the outcome in its query, as hasura-auth redirects. */
  function landing(target: string, outcome: Record<string, string>): string {
    const url = new URL(target);
    for (const [key, value] of Object.entries(outcome)) url.searchParams.set(key, value);
    return url.href;
  }
  const errorOutcome = (error: DomainError) => ({ error: error.reason, errorDescription: error.message });

  return {
    enabled: byName.size > 0,
    /** The configured providers, in the order of AUTH_PROVIDERS. */
    buttons: (): ProviderButton[] => deps.providers.map((p) => ({ name: p.name, label: p.label })),

    /**
     * GET /signin/provider/{provider}: where to send the browser (the provider's authorization
     * endpoint with state, nonce and PKCE S256), and the value the browser must bring back with
     * the state (a cookie) — or, refused, `redirectTo` with the error. A redirectTo that is not
     * ours is refused outright (redirectTo-not-allowed).
     */
    async startProviderSignIn(
      name: string,
      input: { redirectTo?: string; connect?: string; displayName?: string; locale?: string; defaultRole?: string },
      caller: Caller,
    ): Promise<{ location: string; binding: string | null }> {
      const redirectTo = auth.checkRedirect(input.redirectTo, HOME);
      try {
        const p = providerOf(name);
        await limiter.hit('provider-ip', caller.ip, limits.ticketPerIp);
        if (input.defaultRole && input.defaultRole !== signUpRole) throw authErrors.roleNotAllowed();
        let connectUserId: string | undefined;
        if (input.connect) {
          const session = await auth.authenticate(input.connect);
          await auth.requireProof(session);
          connectUserId = session.user.id;
        }
        const { authorizationEndpoint } = await discover(p);
        const [state, nonce, verifier, binding] = [randomToken(), randomToken(), randomToken(), randomToken()];
        const trip: RoundTrip = {
          provider: p.name,
          redirectTo,
          nonceHash: sha256(nonce),
          verifier: auth.vault.seal(verifier, OIDC_VERIFIER_CONTEXT),
          bindingHash: sha256(binding),
          ...(input.displayName ? { displayName: input.displayName } : {}),
          ...(input.locale ? { locale: input.locale } : {}),
          ...(connectUserId ? { connectUserId } : {}),
        };
        await auth.createChallenge(STATE_KIND, state, { userId: connectUserId, data: trip, ttlMs: ROUND_TRIP_MS });
        const url = new URL(authorizationEndpoint);
        url.searchParams.set('response_type', 'code');
        url.searchParams.set('client_id', p.clientId);
        url.searchParams.set('redirect_uri', callbackUrl(p));
        url.searchParams.set('scope', 'openid email profile');
        url.searchParams.set('state', state);
        url.searchParams.set('nonce', nonce);
        url.searchParams.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'));
        url.searchParams.set('code_challenge_method', 'S256');
        if (p.prompt) url.searchParams.set('prompt', p.prompt);
        return { location: url.href, binding };
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return { location: landing(redirectTo, errorOutcome(error)), binding: null };
      }
    },

    /**
     * GET /signin/provider/{provider}/callback: checks the state (ours, unused, of this
     * provider, from the browser that started), exchanges the code, verifies the ID token and
     * signs in — or links, for `connect`. Returns where to send the browser: redirectTo with
     * `refreshToken`, or with `error` and `errorDescription` (the sign-in page when the state
     * is unknown).
     */
    async finishProviderSignIn(name: string, query: Record<string, string>, binding: string | undefined, caller: Caller): Promise<string> {
      let target = `${publicUrl}${SIGN_IN}`;
      try {
        const p = providerOf(name);
        await limiter.hit('provider-ip', caller.ip, limits.ticketPerIp);
        const params = callbackQuery.safeParse(query);
        if (!params.success || !params.data.state) throw oidcErrors.invalidState();
        const row = await auth.consumeChallenge(STATE_KIND, params.data.state);
        const trip = row?.data as RoundTrip | undefined;
        if (!trip || trip.provider !== p.name || !binding || sha256(binding) !== trip.bindingHash) throw oidcErrors.invalidState();
        target = trip.redirectTo;
        const { code, error, iss } = params.data;
        // RFC 9207: an answer that names another issuer is a mix-up, whatever it carries.
        if (error || (iss !== undefined && iss !== p.issuer)) throw oidcErrors.providerError();
        if (!code) throw oidcErrors.tokenExchangeFailed();
        let verifier: string;
        try {
          verifier = auth.vault.open(trip.verifier, OIDC_VERIFIER_CONTEXT);
        } catch (error) {
          // Sealed before a rotation that dropped its key: the round trip starts again.
          if (error instanceof VaultError) throw oidcErrors.invalidState();
          throw error;
        }
        const idToken = await exchangeCode(p, code, verifier);
        let profile: ProviderProfile;
        try {
          ({ profile } = await verifyIdToken(p, idToken, (nonce) => typeof nonce === 'string' && sha256(nonce) === trip.nonceHash));
        } catch (failure) {
          if (failure instanceof DomainError && hasReason(failure, 'invalid-request')) throw oidcErrors.profileFetchFailed();
          throw failure;
        }
        if (trip.connectUserId) {
          await auth.requireActive(await auth.findUserById(trip.connectUserId));
          await link(p, profile.sub, trip.connectUserId, caller);
          return target;
        }
        const u = await userForProfile(p, profile, caller, trip);
        const session = await auth.startSession(u, `provider:${p.name}`);
        return landing(target, { refreshToken: session.refreshToken });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return landing(target, errorOutcome(error));
      }
    },

    /**
     * POST /signin/idtoken: a session for the holder of an ID token the provider issued to our
     * client id. With `nonce`, the token's nonce must be its SHA-256 in hex (hasura-auth's rule);
     * without, the token must carry none.
     */
    async signInIdToken(input: { provider: string; idToken: string; nonce?: string }, caller: Caller): Promise<Session> {
      const p = providerOf(input.provider);
      await limiter.hit('provider-ip', caller.ip, limits.ticketPerIp);
      const { profile, expiresAt } = await verifyIdToken(p, input.idToken, nonceRule(input.nonce));
      await spendIdToken(input.idToken, expiresAt);
      const u = await userForProfile(p, profile, caller);
      return auth.startSession(u, `provider:${p.name}`);
    },

    /** POST /link/idtoken: the provider account becomes a way in to the signed-in user's account. */
    async linkIdToken(session: SessionRow, input: { provider: string; idToken: string; nonce?: string }, caller: Caller): Promise<void> {
      const p = providerOf(input.provider);
      // A stolen session must not plant its thief's account as a lasting way in (decision 048).
      await auth.requireProof(session);
      const { profile, expiresAt } = await verifyIdToken(p, input.idToken, nonceRule(input.nonce));
      await spendIdToken(input.idToken, expiresAt);
      await link(p, profile.sub, session.user.id, caller);
    },
  };
}

const callbackQuery = z.object({
  code: z.string().min(1).max(4096).optional(),
  state: z.string().min(1).max(256).optional(),
  error: z.string().max(256).optional(),
  iss: z.string().max(2048).optional(),
});

/** hasura-auth's nonce rule for ID tokens a client brings: the claim is the hex SHA-256 of the nonce. */
function nonceRule(nonce: string | undefined): (claim: unknown) => boolean {
  if (nonce === undefined) return (claim) => claim === undefined;
  const expected = createHash('sha256').update(nonce).digest('hex');
  return (claim) => claim === expected;
}

/** A token the provider did not sign for us, or no longer holds; anything else is the provider's fault. */
function isTokenFault(error: unknown): boolean {
  if (!(error instanceof joseErrors.JOSEError)) return false;
  return !['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC'].includes(error.code);
}

const emailSchema = z.string().max(254).pipe(z.email());
const verified = (value: unknown) => value === true || value === 'true';

function profileOf(payload: JWTPayload): ProviderProfile {
  const sub = payload.sub;
  if (typeof sub !== 'string' || !sub || sub.length > 255) throw oidcErrors.invalidIdToken();
  const email = emailSchema.safeParse(payload.email);
  const name = typeof payload.name === 'string' ? payload.name.trim().slice(0, 120) : '';
  return {
    sub,
    email: email.success ? email.data.toLowerCase() : null,
    emailVerified: email.success && verified(payload.email_verified),
    name: name || null,
  };
}
