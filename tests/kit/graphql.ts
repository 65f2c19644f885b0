// The API as the tests, the load run and the fault runs call it: one POST to /graphql with a
// bearer token. A document is typed (graphql(`…`), so its answer and variables are the schema's),
// or a string for a test that sends on purpose what the schema refuses.
import { print } from 'graphql';
import type { TadaDocumentNode } from '#lib/graphql.ts';

export type GqlError = {
  message: string;
  path?: (string | number)[];
  extensions: { code: string; fields?: Record<string, string>; reason?: string };
};
/** GraphQL's whole answer: data, errors, or both. */
export type GqlResult<Data = any> = { data?: Data; errors?: GqlError[] };
export type Document<Result, Variables> = TadaDocumentNode<Result, Variables> | string;

/** One signed-in client of the API: a call answers what GraphQL answers, errors included. */
export type Api = <Result = any, Variables = Record<string, unknown>>(
  document: Document<Result, Variables>,
  variables?: Variables,
) => Promise<GqlResult<Result>>;

const texts = new WeakMap<object, string>();
/** A document's text, as sent. */
export const documentText = (document: Document<any, any>): string => {
  if (typeof document === 'string') return document;
  let text = texts.get(document);
  if (text === undefined) texts.set(document, (text = print(document)));
  return text;
};

/** The HTTP status and parsed body of one call (the fault runs read both). */
export async function postGraphql<Result, Variables>(
  url: string,
  token: string,
  document: Document<Result, Variables>,
  variables?: Variables,
  options: { timeoutMs?: number } = {},
): Promise<{ status: number; body: GqlResult<Result> }> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: documentText(document), variables }),
    signal: options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs),
  });
  return { status: res.status, body: (await res.json()) as GqlResult<Result> };
}

/** A client of the server at `url`, signed in with `token` (a function for a token that changes). */
export function apiOver(url: string, token: string | (() => string), options: { timeoutMs?: number } = {}): Api {
  return async (document, variables) => (await postGraphql(url, typeof token === 'string' ? token : token(), document, variables, options)).body;
}

/** The data of a call that must succeed; its errors, if any, are thrown with their messages. */
export function ok<Data>(res: GqlResult<Data>): Data {
  if (res.errors?.length || res.data === undefined || res.data === null) {
    throw new Error(`GraphQL refused a call that must succeed: ${JSON.stringify(res.errors ?? res)}`);
  }
  return res.data;
}
