// A personal access token's name: what its owner typed on the tokens screen (`metadata.name`),
// the same on the screen, in the account's activity and in the mail that announces it.
import { t } from '#lib/i18n.ts';

export const tokenNameOf = (metadata: unknown): string => {
  const name = (metadata as Record<string, unknown> | null)?.name;
  return typeof name === 'string' && name ? name : t('tokens.unnamed');
};
