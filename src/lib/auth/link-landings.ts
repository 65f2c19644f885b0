// The `type` an e-mail link adds to the page it lands on (hasura-auth's redirect), and what it
// tells the user (decision 046): read by the landing (middleware) and its confirmation
// (`/sign-in/continue`, decision 052).
import { t } from '#lib/i18n.ts';

/**
 * A message means the link has confirmed the account's address on its way in (the ticket is
 * spent): the toast of its page, and the first thing its confirmation page says.
 * Only /set-password reads one (a reset's); elsewhere it would be read as the page's own
 * parameter (the orders list's «type» filter), so it goes once the link is handled.
 */
export const linkLandings: Record<string, string | null> = {
  emailConfirmChange: t('success.emailChanged'),
  emailVerify: t('success.emailVerified'),
  signinPasswordless: null,
  setPassword: null,
  passwordReset: null,
};
