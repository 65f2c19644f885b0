// The routes of identity providers (OAuth round trips, ID tokens) over the OIDC service.
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { LANDING_COOKIE, LANDING_COOKIE_SECONDS, landingBindingOf } from '#lib/auth/landing-binding.ts';
import type { AuthService } from '#server/auth/service.ts';
import { ROUND_TRIP_MS, type OidcService } from '#server/auth/oidc.ts';
import { parse, redirectTo } from '#server/auth/inputs.ts';
import { bearer, callerOf, type Handler, OK, post, queryOf, type RouteContext, type Routes, whenEnabled } from './http.ts';

const providerName = z.string().min(1).max(30);
const idTokenBody = z.strictObject({ provider: providerName, idToken: z.string().min(1).max(16_384), nonce: z.string().min(1).max(512).optional() });
const startQuery = z.object({
  redirectTo,
  connect: z.string().max(4096).optional(),
  displayName: z.string().trim().min(1).max(120).optional(),
  locale: z.string().min(2).max(10).optional(),
  defaultRole: z.string().max(40).optional(),
});

/** The cookie that ties a round trip to the browser that started it (login CSRF). */
const BINDING_COOKIE = 'atelier_oidc';

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** The routes of identity providers; `services` is the process's (services.ts, which builds `oidc`). */
export function oidcRoutes(services: { auth: AuthService; oidc: OidcService }, context: RouteContext): Routes {
  const { oidc, auth } = services;
  const caller = (req: IncomingMessage) => callerOf(req, context);
  const secure = auth.publicUrl.startsWith('https:') ? '; Secure' : '';
  const bindingCookie = (value: string, maxAge: number) =>
    `${BINDING_COOKIE}=${value}; Path=/api/auth/signin/provider/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;

  const redirect = (res: Parameters<Handler>[1], location: string, cookie: string | string[]) => {
    res.writeHead(302, { Location: location, 'Set-Cookie': cookie, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    res.end();
  };

  const perProvider: Routes = {};
  for (const { name } of oidc.buttons()) {
    perProvider[`GET /signin/provider/${name}`] = async (req, res) => {
      const query = parse(startQuery, queryOf(req));
      const { location, binding } = await oidc.startProviderSignIn(name, query, caller(req));
      redirect(res, location, binding ? bindingCookie(binding, ROUND_TRIP_MS / 1000) : bindingCookie('', 0));
    };
    perProvider[`GET /signin/provider/${name}/callback`] = async (req, res) => {
      const location = await oidc.finishProviderSignIn(name, queryOf(req), cookieOf(req, BINDING_COOKIE), caller(req));
      // The round trip was this browser's: its landing signs in without asking (decision 052).
      const refreshToken = new URL(location, auth.publicUrl).searchParams.get('refreshToken');
      const landingCookie = refreshToken
        ? [`${LANDING_COOKIE}=${landingBindingOf(refreshToken)}; Path=/; Max-Age=${LANDING_COOKIE_SECONDS}; HttpOnly; SameSite=Lax${secure}`]
        : [];
      redirect(res, location, [bindingCookie('', 0), ...landingCookie]);
    };
  }

  return whenEnabled(oidc.enabled, {
    ...perProvider,
    'POST /signin/idtoken': post(async (raw, req) => {
      const body = parse(idTokenBody, raw);
      return { session: await oidc.signInIdToken(body, caller(req)), mfa: null };
    }),
    'POST /link/idtoken': post(async (raw, req) => {
      const session = await auth.authenticate(bearer(req));
      const body = parse(idTokenBody, raw);
      await oidc.linkIdToken(session, body, caller(req));
      return OK;
    }),
  });
}
