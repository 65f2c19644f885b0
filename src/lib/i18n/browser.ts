// `t()` as the islands run it in the browser: the build has written each key's message in its
// place (astro.config.mjs, decision 025), so neither i18next nor the catalogue is loaded there.
// What is left is filling the variables, as i18next does (tests/shell-lib.test.ts holds them equal).
export function t(message: string, vars?: Record<string, string | number>): string {
  if (!vars) return message;
  return message.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}
