// SPEC §2.2 for every route of SPEC §2.1: signed out and each of the four roles.
import { expect, test } from './support/test.ts';
import { routes, type RouteDef } from '#lib/routes.ts';
import type { Role } from '#lib/roles.ts';
import { roleNames, storageState } from './support/fixtures.ts';

const ID = '3f0c6a52-8c1e-4b7a-9d2e-5a6b7c8d9e0f';
const concrete = (route: RouteDef) => (route.path === '/jump' ? '/jump?to=%2Fstock' : route.path.replace(/\{\w+\??\}/g, ID));

type Expectation = { path: string; status?: number };

function expected(route: RouteDef, role: Role | null): Expectation {
  const url = concrete(route);
  // SMS sign-in is off by default (decision 030): its page answers the French 404.
  if (route.access === 'signed-out') return role ? { path: '/repair-orders' } : { path: url, status: route.path === '/sign-in/sms' ? 404 : 200 };
  if (!role) return { path: '/sign-in' };
  if (route.access !== 'signed-in' && !route.access.includes(role)) return { path: '/repair-orders' };
  // Its SMS number too: the account's phone page is a 404 while SMS is off.
  if (route.path === '/profile/phone') return { path: url, status: 404 };
  // No record exists yet behind an id: a French 404 at the same URL.
  return { path: url, status: url.includes(ID) ? 404 : 200 };
}

const states: (Role | null)[] = [null, ...roleNames];

for (const role of states) {
  test.describe(`guard, ${role ?? 'signed out'}`, () => {
    if (role) test.use({ storageState: storageState(role) });

    // One page walks every route (a context per route cost 0.3 s each, 190 times); each check is
    // soft and names its route, so one failure still shows every other route's verdict.
    test('every route', async ({ page }) => {
      for (const route of routes) {
        const url = concrete(route);
        const want = expected(route, role);
        const what = `${url} → ${want.path}${want.status ? ` (${want.status})` : ''}`;
        const response = await page.goto(url);
        expect.soft(new URL(page.url()).pathname, what).toBe(want.path.split('?')[0]);
        if (want.status) expect.soft(response?.status(), what).toBe(want.status);
        // An order's own pages say it in the SPEC's words (§8); other records, the generic title.
        const order = /^\/repair-order\/\{uuid\}/.test(route.path);
        // A sign-in method switched off says so (SMS, off by default), not that a page is missing.
        const smsOff = route.path === '/sign-in/sms' || route.path === '/profile/phone';
        if (want.status === 404)
          await expect
            .soft(
              page.getByRole('heading', {
                name: smsOff ? 'Connexion par SMS non proposée' : order ? "Impossible de récupérer l'ordre de réparation" : 'Page introuvable',
              }),
              what,
            )
            .toBeVisible();
        if (want.path === '/sign-in' && url !== '/sign-in') expect.soft(new URL(page.url()).searchParams.get('redirectTo'), what).toBe(url);
      }
    });

    test('an unknown path', async ({ page }) => {
      await page.goto('/pas/une/page');
      expect(new URL(page.url()).pathname).toBe(role ? '/repair-orders' : '/sign-in');
      await page.goto('/');
      expect(new URL(page.url()).pathname).toBe(role ? '/repair-orders' : '/sign-in');
    });
  });
}
