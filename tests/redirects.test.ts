// Issue 14, item 2: one function decides every redirect target, and hostile ones stay home.
import { describe, expect, it } from 'vitest';
import { safeRedirect } from '#lib/redirects.ts';

const PUBLIC = 'https://atelier.example';
const ORDER = '/repair-order/6f1c2a9e-1b2c-4d3e-8f90-123456789abc';

describe('safeRedirect', () => {
  it.each([
    ['/stock?onglet=historique', '/stock?onglet=historique'],
    [`${ORDER}#notes`, `${ORDER}#notes`],
    [`${ORDER}/diagnostic?onglet=courbes`, `${ORDER}/diagnostic?onglet=courbes`],
    ['https://atelier.example/gearboxes?type=automatic', '/gearboxes?type=automatic'],
    ['/repair-orders/', '/repair-orders/'],
    // A path that normalises to one of ours is that path.
    ['/gearboxes/../stock', '/stock'],
    ['/./stock', '/stock'],
  ])('accepts %s as %s', (input, path) => {
    expect(safeRedirect(input, PUBLIC)).toEqual({ path, href: `${PUBLIC}${path}` });
  });

  it.each([
    // Doubled and mixed slashes and backslashes.
    '//evil.example',
    '///evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '\\/evil.example',
    '/\\/evil.example',
    // Dot segments that normalise to a protocol-relative path.
    '/.//evil.example',
    '/./\\evil.example',
    '/stock/..//evil.example',
    '/%2e//evil.example',
    // Percent-encoding, single and double.
    '/%2F%2Fevil.example',
    '/%5C%5Cevil.example',
    '%2F%2Fevil.example',
    '/%252F%252Fevil.example',
    'https:%2F%2Fevil.example',
    // Tabs, newlines, spaces and other invisibles inside or around.
    '/\t/evil.example',
    '/\n/evil.example',
    '/\r\n/evil.example',
    ' //evil.example',
    '\u0000//evil.example',
    '/stock\u2028',
    '\ufeff//evil.example',
    // User-info.
    'https://atelier.example@evil.example/stock',
    'https://user:pass@atelier.example/stock',
    '//atelier.example@evil.example/',
    // Other schemes, hosts and ports.
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'ftp://atelier.example/stock',
    'http://atelier.example/stock',
    'https://atelier.example:8443/stock',
    'https://evil.example/stock',
    'https://atelier.example.evil.example/stock',
    // Not one of our pages.
    '/api/auth/verify?ticket=x',
    '/graphql',
    '/unknown',
    'stock',
    '',
    `/${'a'.repeat(3000)}`,
  ])('refuses %j', (input) => {
    expect(safeRedirect(input, PUBLIC)).toBeNull();
  });

  it('refuses missing values', () => {
    expect(safeRedirect(null, PUBLIC)).toBeNull();
    expect(safeRedirect(undefined, PUBLIC)).toBeNull();
  });
});
