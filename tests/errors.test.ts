// The API's words for what went wrong, shared by server, pages and islands (decision 060).
import { ClientError } from 'graphql-request';
import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, apiErrorOf, hasCode, hasReason, REFUSAL_REASONS } from '#lib/errors.ts';
import { DomainError } from '#server/errors.ts';

const answer = (extensions: Record<string, unknown>, message = 'Email non disponible') =>
  new ClientError({ status: 200, headers: new Headers(), errors: [{ message, extensions }] } as never, { query: '' });

describe('error codes and reasons', () => {
  it('reads the first error of a GraphQL answer: code, reason, message, fields, reasons', () => {
    const refusal = apiErrorOf(answer({ code: 'conflict', reason: 'email-already-in-use', fields: { email: 'Email non disponible' } }));
    expect(refusal).toEqual({ code: 'conflict', reason: 'email-already-in-use', message: 'Email non disponible', fields: { email: 'Email non disponible' } });
    expect(hasCode(refusal, 'conflict')).toBe(true);
    expect(hasReason(refusal, 'email-already-in-use')).toBe(true);
  });

  it('reads nothing from a failure that is not an answer of the API', () => {
    for (const failure of [new Error('Network Error'), { response: { errors: [{ extensions: { code: 'conflict' } }] } }, null, 'conflict']) {
      expect(apiErrorOf(failure)).toEqual({});
      expect(hasCode(apiErrorOf(failure), 'conflict')).toBe(false);
    }
  });

  it('answers whether a refusal has one of the codes or reasons asked', () => {
    expect(hasCode({ code: 'not-found' }, 'not-found', 'forbidden', 'validation')).toBe(true);
    expect(hasCode({ code: 'timeout' }, 'not-found', 'forbidden', 'validation')).toBe(false);
    expect(hasCode({}, 'conflict')).toBe(false);
    expect(hasCode(null, 'conflict')).toBe(false);
    const refused = new DomainError('unauthenticated', 'invalid-totp', 'Invalid TOTP');
    expect(hasReason(refused, 'invalid-current-password', 'invalid-totp')).toBe(true);
    expect(hasReason(refused, 'too-many-requests')).toBe(false);
    expect(hasReason(undefined, 'too-many-requests')).toBe(false);
  });

  it('refuses a code or a reason no one says, at the type check', () => {
    // @ts-expect-error: 'conflit' is not a code of the API.
    expect(hasCode({ code: 'conflict' }, 'conflit')).toBe(false);
    // @ts-expect-error: 'invalid-totpp' is not a reason of the API.
    expect(hasReason({ reason: 'invalid-totp' }, 'invalid-totpp')).toBe(false);
    // @ts-expect-error: a service names only a known reason.
    expect(new DomainError('conflict', 'no-such-reason', 'x').reason).toBe('no-such-reason');
  });

  it('names each code and reason once', () => {
    expect(new Set(API_ERROR_CODES).size).toBe(API_ERROR_CODES.length);
    expect(new Set(REFUSAL_REASONS).size).toBe(REFUSAL_REASONS.length);
  });
});
