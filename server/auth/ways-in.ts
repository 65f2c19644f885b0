// Ways into an account (issue 30, item 6; decision 056): a second factor, recovery codes, a
// security key, a phone number for SMS sign-in, an access token, an identity provider's account,
// the password. Adding or removing
// one is an event of the audit trail (decision 034) and a mail to the account's address (decision
// 049), both written in the transaction of the change: either the change, its event and its mail
// are kept, or none of them. The caller nudges the mailer after the commit.
import type { AuditChange } from '#lib/audit/audit.ts';
import { t } from '#lib/i18n.ts';
import { record } from '#server/audit/record.ts';
import { fieldLabel, userRef } from '#server/audit/refs.ts';
import type { Db } from '#server/db/client.ts';
import type { Mailer } from './mailer.ts';
import type { WayInChange } from './templates.ts';

export type { WayInChange };

export type WayInAccount = { id: string; displayName: string; email: string | null };

export type WayInContext = {
  /** The address the change came from, as the request's client (TRUST_PROXY read). */
  ip: string;
  /** Who made it: the account itself unless given (an admin acting for a user is told the user too). */
  actorId?: string;
  /** The key's or token's name, or the phone number. */
  name?: string;
  /** The phone number replaced, when a new one takes its place. */
  before?: string;
};

/** What the account's activity shows: the field and its before and after, never a secret. */
function changesOf(change: WayInChange, name: string, before: string): AuditChange[] {
  switch (change) {
    case 'totpEnabled':
      return [{ field: fieldLabel('totp'), before: '', after: t('audit.wayIn.enabled') }];
    case 'totpDisabled':
      return [{ field: fieldLabel('totp'), before: t('audit.wayIn.enabled'), after: t('audit.wayIn.disabled') }];
    case 'recoveryCodesRenewed':
      return [{ field: fieldLabel('recoveryCodes'), before: '', after: t('audit.wayIn.renewed') }];
    case 'securityKeyAdded':
      return [{ field: fieldLabel('securityKey'), before: '', after: t('audit.wayIn.keyAdded', { name }) }];
    case 'securityKeyRemoved':
      return [{ field: fieldLabel('securityKey'), before: name, after: t('audit.wayIn.keyRemoved') }];
    case 'phoneAdded':
      return [{ field: fieldLabel('phone'), before, after: name }];
    case 'phoneRemoved':
      return [{ field: fieldLabel('phone'), before: name, after: '' }];
    case 'tokenCreated':
      return [{ field: fieldLabel('token'), before: '', after: t('audit.wayIn.tokenCreated', { name }) }];
    case 'tokenRevoked':
      return [{ field: fieldLabel('token'), before: name, after: t('audit.wayIn.tokenRevoked') }];
    case 'providerLinked':
      return [{ field: fieldLabel('provider'), before: '', after: t('audit.wayIn.providerLinked', { name }) }];
    case 'passwordChanged':
      return [{ field: fieldLabel('password'), before: '', after: t('audit.passwordChanged') }];
  }
}

export type WayInAnnouncer = (
  tx: Pick<Db, 'insert' | 'execute'>,
  account: WayInAccount,
  change: WayInChange,
  context: WayInContext,
  options?: { audit?: boolean },
) => Promise<void>;

/**
 * Records the change on the account and queues its notice to the account's address, in `tx`.
 * `audit: false` where the caller records the event already (the password change). An account
 * without an address (reached by phone) gets the event only.
 */
export function createWayInAnnouncer(deps: { mailer: Mailer; publicUrl: string }): WayInAnnouncer {
  return async (tx, account, change, context, options = {}) => {
    const name = context.name ?? '';
    if (options.audit !== false) {
      await record(tx, {
        action: 'changed',
        entity: userRef(account),
        actor: { id: context.actorId ?? account.id },
        changes: changesOf(change, name, context.before ?? ''),
      });
    }
    if (!account.email) return;
    await deps.mailer.queue(tx, 'wayInNotice', account.email, {
      displayName: account.displayName,
      // What to do if it was not them: a new password (which ends every other sign-in).
      link: `${deps.publicUrl}/sign-in?view=forgot-password`,
      wayIn: { change, name, at: new Date().toISOString(), address: context.ip },
    });
  };
}
