// What the four password rules of SPEC §5 test, apart from their messages and from zod: the
// strength bar's script (on every signed-in page, with the profile menu's dialog) loads only this.
export const PASSWORD_MIN_LENGTH = 8;

export const passwordTests = {
  length: (v: string) => v.length >= PASSWORD_MIN_LENGTH,
  uppercase: (v: string) => /\p{Lu}/u.test(v),
  digit: (v: string) => /\d/.test(v),
  special: (v: string) => /[^\p{L}\p{N}\s]/u.test(v),
};
export type PasswordRuleId = keyof typeof passwordTests;
