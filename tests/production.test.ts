// Issue 14, item 9: what a production server tells a client when something breaks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { graphqlAs, signInAll, type DemoRole } from './kit/index.ts';

describe('a production server', () => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  beforeAll(async () => {
    t = await startTestApp('pglite', { production: true });
    gql = graphqlAs(t, (await signInAll(t)) as Record<DemoRole, string>);
  });
  afterAll(() => t?.close());

  it('answers an internal failure with a French message, no stack and no detail', async () => {
    const gearboxModels = t.app.domain.gearboxModels;
    const real = gearboxModels.list;
    gearboxModels.list = (() => {
      throw new Error('relation "secret_table" does not exist\n    at Object.<anonymous> (/srv/app/server/x.ts:1:1)');
    }) as typeof real;
    try {
      const res = await gql('mechanic', '{ gearboxModels(limit: 1) { id } }');
      expect(res.errors![0]).toMatchObject({ message: 'Une erreur est survenue', extensions: { code: 'internal' } });
      const text = JSON.stringify(res);
      expect(text).not.toMatch(/secret_table|server\/x\.ts|stack/);
    } finally {
      gearboxModels.list = real;
    }
  });

  it('keeps the schema for admins and masks suggestions', async () => {
    expect((await gql('commercial', '{ __schema { types { name } } }')).errors![0]!.extensions.code).toBe('forbidden');
    expect((await gql('app_admin', '{ __type(name: "users") { name } }')).data.__type.name).toBe('users');
    expect(JSON.stringify(await gql('app_admin', '{ userz { id } }'))).not.toMatch(/Did you mean/);
  });
});
