// The demo workshop's people, signed in to a test app: one API client per role.
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { type Api, apiOver, type Document, type GqlResult } from './graphql.ts';

export const demoEmails = {
  app_admin: 'admin@demo.local',
  diagnostician: 'diagnostic@demo.local',
  mechanic: 'mecanicien@demo.local',
  commercial: 'commercial@demo.local',
} as const;
export type DemoRole = keyof typeof demoEmails;
const demoRoles = Object.keys(demoEmails) as DemoRole[];

/** An access token for each demo role. */
export async function signInAll(t: { url: string }): Promise<Record<DemoRole, string>> {
  const tokens = {} as Record<DemoRole, string>;
  for (const role of demoRoles) {
    const res = await fetch(`${t.url}/api/auth/signin/email-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: demoEmails[role], password: DEMO_PASSWORD }),
    });
    tokens[role] = ((await res.json()) as { session: { accessToken: string } }).session.accessToken;
  }
  return tokens;
}

/**
 * GraphQL as any demo role. `gql(role, document, variables)` probes the API as a test does, with
 * any variables (those the schema refuses too) and an answer read loosely; `gql.diagnostician`
 * (and each role) is the typed client the builders take.
 */
export type Gql = ((role: DemoRole, document: Document<any, any>, variables?: object) => Promise<GqlResult>) & Record<DemoRole, Api>;

/** GraphQL over HTTP as each role, with the role's token as `tokens` holds it at the time of the call. */
export function graphqlAs(t: { url: string }, tokens: Record<DemoRole, string>): Gql {
  const as = Object.fromEntries(demoRoles.map((role) => [role, apiOver(t.url, () => tokens[role])])) as Record<DemoRole, Api>;
  const gql = (role: DemoRole, document: Document<any, any>, variables?: object) => as[role](document, variables as Record<string, unknown>);
  return Object.assign(gql, as);
}

/** A page session's cookie (`name=value`), signed in through the sign-in form as a person would. */
export async function sessionCookie(t: { url: string }, email: string): Promise<string> {
  const signIn = await fetch(`${t.url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: t.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: DEMO_PASSWORD }),
  });
  return signIn.headers
    .getSetCookie()
    .find((c) => c.startsWith('atelier_session='))!
    .split(';')[0]!;
}
