import { hash, verify } from '@node-rs/argon2';
import { passwordRules } from '#lib/auth/password.ts';

// OWASP ASVS 5.0 appendix C: argon2id, t=2, m=19 MiB, p=1. (Algorithm.Argon2id is 2.)
const options = { algorithm: 2 as never, timeCost: 2, memoryCost: 19 * 1024, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

// Verified against when the e-mail is unknown, so both answers take the same time.
let decoy: Promise<string> | undefined;

export async function verifyPassword(passwordHash: string | null | undefined, password: string): Promise<boolean> {
  if (!passwordHash) {
    decoy ??= hashPassword('decoy-password-never-matches');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}

/** The first rule the password breaks, or null. */
export function passwordPolicyError(password: string): string | null {
  return passwordRules.find((rule) => !rule.test(password))?.message ?? null;
}
