// hasura-auth's input shapes (the bodies its clients send) and its error codes for a body that
// does not fit them: the auth services' inputs, read by the HTTP routes (routes/) before they call them.
import { z } from 'zod';
import { DomainError } from '#server/errors.ts';

export const email = z.string().max(254).pipe(z.email());
export const password = z.string().min(1).max(256);
export const redirectTo = z.string().max(2048).optional();

/** hasura-auth's `options` of a sign-up or a passwordless sign-in; only some mean something here. */
export const authOptionsShape = {
  redirectTo,
  displayName: z.string().trim().max(120).optional(),
  locale: z.string().min(2).max(10).optional(),
  defaultRole: z.string().max(40).optional(),
  allowedRoles: z.array(z.string().max(40)).max(10).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
};
export const authOptions = z.strictObject(authOptionsShape).optional();

/** Maps a zod failure to hasura-auth's error codes. */
export function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = String(issue.path.at(-1) ?? '');
  if (field === 'email' || field === 'newEmail') throw new DomainError('invalid', 'invalid-email', 'Email is incorrectly formatted');
  if (field === 'password' || field === 'newPassword') throw new DomainError('invalid', 'invalid-password', 'Password is incorrectly formatted');
  if (field === 'phoneNumber') throw new DomainError('invalid', 'invalid-phone-number', 'Phone number is incorrectly formatted');
  if (issue.code === 'unrecognized_keys') {
    throw new DomainError('invalid', 'invalid-request', `Unknown field: ${issue.keys.join(', ')}`);
  }
  throw new DomainError('invalid', 'invalid-request', `Invalid field ${issue.path.join('.') || 'body'}: ${issue.message}`);
}
