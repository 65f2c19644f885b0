// The schema promises a value wherever it says `!` (issue 16: typed documents read `string`, not
// `string | null`, from it). Every field the admin can read is asked of every record of the demo
// workshop, each record by its own query: a null where the schema promises a value fails here.
import { getNamedType, isLeafType, isNonNullType, isObjectType, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '#server/graphql/schema.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { graphqlAs, ok, signInAll } from './kit/index.ts';

/** Every field of `type` without a required argument, `depth` levels down. */
function everything(type: GraphQLObjectType, depth: number): string {
  return selections(type, depth).join(' ');
}

/** The same, field by field. */
function selections(type: GraphQLObjectType, depth: number): string[] {
  return Object.values(type.getFields())
    .filter((field) => !field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined))
    .map((field) => {
      const named = getNamedType(field.type);
      if (isLeafType(named)) return field.name;
      if (depth === 0 || !isObjectType(named)) return '';
      const inner = everything(named, depth - 1);
      return inner ? `${field.name} { ${inner} }` : '';
    })
    .filter(Boolean);
}

/** The selections in groups under the API's breadth limit (300 fields a query). */
function inGroups(parts: string[], max = 250): string[] {
  const groups: string[][] = [[]];
  const size = (part: string) => part.split(/\s+/).length;
  for (const part of parts) {
    const last = groups.at(-1)!;
    if (last.length && last.reduce((n, p) => n + size(p), 0) + size(part) > max) groups.push([part]);
    else last.push(part);
  }
  return groups.map((group) => group.join(' '));
}

const typeOf = (name: string) => schema.getType(name) as GraphQLObjectType;
// Each record type, the list that finds them, and the query that reads one.
const records = [
  { root: 'repairOrder', type: 'repair_orders', list: '{ repairOrders(limit: 100) { id } }', ids: (d: any) => d.repairOrders },
  { root: 'gearboxModel', type: 'gearbox_models', list: '{ gearboxModels(limit: 100) { id } }', ids: (d: any) => d.gearboxModels },
  // The boxes on the racks and those taken out.
  {
    root: 'stockItem',
    type: 'stock_items',
    list: '{ a: stockItems(limit: 500) { id } b: stockItems(limit: 500, history: true) { id } }',
    ids: (d: any) => [...d.a, ...d.b],
  },
  { root: 'user', type: 'users', list: '{ users(limit: 100) { id } }', ids: (d: any) => d.users },
] as const;

describe('every field of the demo workshop answers as the schema says', () => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlAs>;
  beforeAll(async () => {
    t = await startTestApp('pglite');
    gql = graphqlAs(t, await signInAll(t));
  });
  afterAll(() => t?.close());

  it.each(records)('$root, for each one', async ({ root, type, list, ids }) => {
    const found: { id: string }[] = ids(ok(await gql('app_admin', list)));
    expect(found.length).toBeGreaterThan(0);
    const queries = inGroups(selections(typeOf(type), 3)).map((fields) => `query($id: uuid!) { ${root}(id: $id) { ${fields} } }`);
    const failures: string[] = [];
    for (const { id } of found) {
      for (const query of queries) {
        const res = await gql('app_admin', query, { id });
        for (const error of res.errors ?? []) failures.push(`${id}: ${error.message} (${error.path?.join('.')})`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('the lists and counts', async () => {
    const lists = [
      'repairOrderReferents',
      'stockRacks',
      'stockCounts',
      'gearboxModelsAggregate',
      'repairOrdersAggregate',
      'stockItemsAggregate',
      'usersAggregate',
    ];
    const query = `{ ${lists
      .map((name) => {
        const named = getNamedType(schema.getQueryType()!.getFields()[name]!.type);
        return isObjectType(named) ? `${name} { ${everything(named, 3)} }` : name;
      })
      .join(' ')} base: baseItems(kind: symptom) { ${everything(typeOf('base_items'), 3)} } }`;
    const res = await gql('app_admin', query);
    expect(res.errors ?? []).toEqual([]);
  });
});
