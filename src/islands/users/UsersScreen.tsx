// The users screen (SPEC §2.9): the first page comes rendered from the server; the island makes
// search instant (debounced 500 ms), keeps the table live, and carries the admin's actions.
// Until it runs (or without JavaScript) every action is a link or a form the page handles.
import type { StepUpFactors } from '#lib/users/user-list.ts';
import { mdiAccountPlus, mdiChevronDown, mdiMagnify } from '@mdi/js';
import { useEffect, useRef, useState } from 'react';
import { Icon } from '#components/Icon.tsx';
import { badge, listBox, listTable } from '#lib/columns.ts';
import { TextInput } from '#components/TextInput.tsx';
import { hasReason } from '#lib/errors.ts';
import { apiErrorOf, graphqlRequest, graphqlSubscribe } from '#lib/graphql-client.ts';
import { failureMessage, noReply, userNow } from './failure.ts';
import { readAddDraft } from './add-draft.ts';
import { t } from '#lib/i18n.ts';
import { singular } from '#lib/plural.ts';
import { isRole, roleLabels, roles, type Role } from '#lib/roles.ts';
import { showToast } from '#lib/toasts.ts';
import { useHydrated } from '#lib/use-hydrated.ts';
import {
  RESEND_EMAIL,
  SIGN_OUT_USER,
  statusOf,
  UPDATE_USER,
  USERS_COUNT_LIVE,
  USERS_LIVE,
  USERS_PAGE_SIZE,
  usersHref,
  usersVariables,
  usersWhere,
  type UserListItem,
} from '#lib/users/user-list.ts';

// The dialogs are their own chunk, fetched when one is about to open: a pointer over or focus
// on its button, else the click (the browser keeps the module once loaded).
type Dialogs = typeof import('./UserDialogs.tsx');
const loadDialogs = () => import('./UserDialogs.tsx');
const fetchDialogs = () => void loadDialogs().catch(() => undefined);
const preload = { onPointerEnter: fetchDialogs, onFocus: fetchDialogs };

type Props = { users: UserListItem[]; count: number; search: string; page: number; viewerId: string; factors: StepUpFactors };

const statusLabel = { active: t('users.statusActive'), pending: t('users.statusPending'), disabled: t('users.statusDisabled') };
/** A menu item: the whole width, 44 px tall. */
const menuItem = 'flex min-h-11 w-full cursor-pointer items-center rounded-[8px] p-2 text-left font-semibold hover:bg-primary-soft';
const statusClass = { active: 'bg-success-soft text-success', pending: 'bg-amber-100 text-amber-900', disabled: 'bg-readonly text-muted' };

export default function UsersScreen(props: Props) {
  const hydrated = useHydrated();
  const [text, setText] = useState(props.search);
  const [search, setSearch] = useState(props.search);
  const [page, setPage] = useState(props.page);
  const [rows, setRows] = useState(props.users);
  const [count, setCount] = useState(props.count);
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<UserListItem | null>(null);
  /** The action a step-up would let through (a role change). */
  const [stepUp, setStepUp] = useState<(() => void) | null>(null);
  const [loaded, setLoaded] = useState<Dialogs | null>(null);
  const first = useRef(true);

  // Debounced search: back to page 1 whenever the filter changes (SPEC §9).
  useEffect(() => {
    if (text === search) return;
    const timer = setTimeout(() => {
      setSearch(text);
      setPage(1);
    }, 500);
    return () => clearTimeout(timer);
  }, [text, search]);

  useEffect(() => {
    if (!first.current) window.history.replaceState(null, '', usersHref(search, page));
    first.current = false;
    const onError = () => showToast({ type: 'error', message: t('errors.generic') });
    const stopRows = graphqlSubscribe(USERS_LIVE, usersVariables(search, page), (data) => setRows(data.users), onError);
    const stopCount = graphqlSubscribe(USERS_COUNT_LIVE, { where: usersWhere(search) }, (data) => setCount(data.usersAggregate.aggregate.count), onError);
    return () => {
      stopRows();
      stopCount();
    };
  }, [search, page]);

  const pages = Math.max(1, Math.ceil(count / USERS_PAGE_SIZE));
  // The button that opened a dialog gets the focus back; the title, when its row is gone.
  const opener = useRef<HTMLElement | null>(null);
  const title = useRef<HTMLHeadingElement>(null);
  const returnFocus = () => (opener.current?.isConnected ? opener.current : title.current);
  const openDialog = (button: HTMLElement | null, open: () => void) => {
    opener.current = button;
    return loadDialogs().then(
      (module) => {
        setLoaded(module);
        open();
      },
      (error) => showToast({ type: 'error', message: failureMessage(error) }),
    );
  };
  // A new user being typed when the page was reloaded: the dialog opens again as it was (walk31 F8).
  const reopenAdd = useRef(() => readAddDraft() && void openDialog(null, () => setAdding(true)));
  useEffect(() => {
    if (hydrated) reopenAdd.current();
  }, [hydrated]);
  const go = (target: number) => (event: React.MouseEvent) => {
    if (!hydrated) return;
    event.preventDefault();
    setPage(target);
  };
  const update = async (user: UserListItem, set: Partial<Pick<UserListItem, 'defaultRole' | 'disabled'>>) => {
    try {
      await graphqlRequest(UPDATE_USER, { id: user.id, set });
      showToast({ type: 'success', message: t('users.updated') });
    } catch (error) {
      const refusal = apiErrorOf(error);
      if (hasReason(refusal, 'elevated-claim-required')) {
        const module = await loadDialogs().catch(() => null);
        if (module) {
          setLoaded(module);
          setStepUp(() => () => void update(user, set));
          return;
        }
      }
      // The reply lost, not the change (walk31 F11): the account read again says whether it arrived.
      if (noReply(error)) {
        const now = await userNow(user.id);
        if (now && Object.entries(set).every(([field, value]) => now[field as keyof typeof set] === value)) {
          showToast({ type: 'success', message: t('users.updated') });
          return;
        }
      }
      showToast({ type: 'error', message: failureMessage(error) });
    }
  };
  const signOut = async (user: UserListItem) => {
    try {
      await graphqlRequest(SIGN_OUT_USER, { id: user.id });
      showToast({ type: 'success', message: t('users.signedOut', { name: user.displayName }) });
    } catch (error) {
      showToast({ type: 'error', message: failureMessage(error) });
    }
  };
  const resend = async (user: UserListItem) => {
    try {
      await graphqlRequest(RESEND_EMAIL, { id: user.id });
      showToast({ type: 'success', message: t('users.emailSent') });
    } catch (error) {
      showToast({ type: 'error', message: failureMessage(error) });
    }
  };

  return (
    <section aria-labelledby="titre-utilisateurs" className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <h1 id="titre-utilisateurs" ref={title} tabIndex={-1} className="text-2xl font-bold">
          {t('users.title')}
        </h1>
        {hydrated ? (
          <button type="button" className="btn btn-primary" onClick={(event) => void openDialog(event.currentTarget, () => setAdding(true))} {...preload}>
            <Icon path={mdiAccountPlus} />
            {t('users.add')}
          </button>
        ) : (
          <a className="btn btn-primary" href={usersHref(search, page, { ajouter: '' })}>
            <Icon path={mdiAccountPlus} />
            {t('users.add')}
          </a>
        )}
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: a <search> around the form would be one more landmark level for the same thing */}
      <form
        method="get"
        action="/users"
        role="search"
        aria-label={t('users.search')}
        className="flex max-w-xl items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(text);
          setPage(1);
        }}
      >
        <TextInput
          className="flex-1"
          label={t('users.search')}
          name="recherche"
          type="search"
          startIcon={mdiMagnify}
          placeholder={t('users.searchPlaceholder')}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        <button type="submit" className="btn btn-secondary">
          {t('users.searchSubmit')}
        </button>
      </form>
      <p className="text-sm text-muted" aria-live="polite">
        {singular(count) ? t('users.countOne', { count }) : t('users.count', { count })}
      </p>
      {/* A compact list (decision 040): who (name, e-mail cut with an ellipsis), status, role, and
          one action menu per row, a popover that works before the island runs and without it. */}
      <div className={listBox}>
        <table className={listTable}>
          <thead className="border-b border-line bg-canvas">
            <tr>
              <th scope="col" className="w-full max-w-0 px-4 py-2">
                {t('users.name')}
                <span className="block text-xs font-normal text-muted">{t('users.email')}</span>
              </th>
              <th scope="col" className="px-4 py-2">
                {t('users.status')}
              </th>
              <th scope="col" className="px-4 py-2">
                {t('users.role')}
              </th>
              <th scope="col" className="px-4 py-2">
                <span className="sr-only">{t('users.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={4} className="px-4 py-6 text-center text-muted">
                  {t('users.empty')}
                </td>
              </tr>
            ) : (
              rows.map((user) => {
                const self = user.id === props.viewerId;
                const status = statusOf(user);
                const menu = `actions-${user.id}`;
                /** A menu item's own work, once its menu is closed (the dialogs give the focus back to the menu's button). */
                const act = (work: (opener: HTMLElement | null) => void) => (event: React.MouseEvent<HTMLElement>) => {
                  event.currentTarget.closest<HTMLElement>('[popover]')?.hidePopover();
                  work(document.querySelector<HTMLElement>(`[popovertarget="${menu}"]`));
                };
                return (
                  <tr key={user.id} className="border-b border-line last:border-0">
                    <th scope="row" className="w-full max-w-0 px-4 py-2 font-normal">
                      <span className="block truncate font-semibold">
                        {user.displayName} {self ? <span className="font-normal text-muted">{t('users.you')}</span> : null}
                      </span>
                      {/* Cut with an ellipsis, never mid-word; whole in its title, to screen readers, and atop the row's menu. */}
                      <span className="block truncate text-xs text-muted" title={user.email ?? undefined}>
                        {user.email}
                      </span>
                    </th>
                    <td className="px-4 py-2">
                      <span className={`${badge} ${statusClass[status]}`}>{statusLabel[status]}</span>
                    </td>
                    <td className="px-4 py-2">
                      {self ? (
                        <span className="whitespace-nowrap">{isRole(user.defaultRole) && roleLabels[user.defaultRole]}</span>
                      ) : (
                        <div className="flex items-center gap-2">
                          <select
                            aria-label={t('users.roleOf', { name: user.displayName })}
                            className="field-input min-h-8 w-auto py-1"
                            name="defaultRole"
                            form={`utilisateur-${user.id}`}
                            {...(hydrated
                              ? {
                                  value: user.defaultRole,
                                  onChange: (event: React.ChangeEvent<HTMLSelectElement>) => void update(user, { defaultRole: event.target.value as Role }),
                                }
                              : { defaultValue: user.defaultRole })}
                          >
                            {roles.map((role) => (
                              <option key={role} value={role}>
                                {roleLabels[role]}
                              </option>
                            ))}
                          </select>
                          {hydrated ? null : (
                            <button
                              type="submit"
                              form={`utilisateur-${user.id}`}
                              name="action"
                              value="role"
                              className="btn btn-secondary min-h-8 px-3 py-1 text-sm"
                              aria-label={`${t('users.changeRole')} : ${user.displayName}`}
                            >
                              {t('users.changeRole')}
                            </button>
                          )}
                        </div>
                      )}
                    </td>
                    <td className="px-4 py-2 text-right">
                      <button
                        type="button"
                        popoverTarget={menu}
                        className="btn btn-secondary min-h-8 px-3 py-1 text-sm"
                        aria-label={`${t('users.actions')} : ${user.displayName}`}
                        {...(self ? {} : preload)}
                      >
                        {t('users.actions')}
                        <Icon path={mdiChevronDown} size={16} />
                      </button>
                      {/* biome-ignore lint/a11y/useSemanticElements: a popover of actions, named as the profile menu is; a fieldset groups form fields */}
                      <div
                        id={menu}
                        popover="auto"
                        role="group"
                        aria-label={`${t('users.actions')} : ${user.displayName}`}
                        className="row-menu card w-72 p-2 text-left shadow-lg"
                      >
                        <p className="border-b border-line px-2 pb-2 text-sm">
                          <span className="block font-semibold">{user.displayName}</span>
                          <span className="block break-words text-muted">{user.email}</span>
                        </p>
                        <ul className="flex flex-col pt-1">
                          <li>
                            <a
                              className={`${menuItem} text-primary`}
                              href={`/users/${user.id}/activity`}
                              aria-label={t('audit.userLinkOf', { name: user.displayName })}
                            >
                              {t('audit.userLink')}
                            </a>
                          </li>
                          {self ? null : (
                            <li>
                              <form id={`utilisateur-${user.id}`} method="post" action={usersHref(search, page)} className="flex flex-col">
                                <input type="hidden" name="id" value={user.id} />
                                {status === 'pending' ? (
                                  <button
                                    type={hydrated ? 'button' : 'submit'}
                                    name="action"
                                    value="renvoyer"
                                    className={`${menuItem} text-primary`}
                                    onClick={hydrated ? act(() => void resend(user)) : undefined}
                                    aria-label={`${t('users.resend')} : ${user.displayName}`}
                                  >
                                    {t('users.resend')}
                                  </button>
                                ) : null}
                                <button
                                  type={hydrated ? 'button' : 'submit'}
                                  name="action"
                                  value={user.disabled ? 'activer' : 'desactiver'}
                                  className={`${menuItem} text-primary`}
                                  onClick={hydrated ? act(() => void update(user, { disabled: !user.disabled })) : undefined}
                                  aria-label={`${user.disabled ? t('users.enable') : t('users.disable')} : ${user.displayName}`}
                                >
                                  {user.disabled ? t('users.enable') : t('users.disable')}
                                </button>
                                {status === 'active' ? (
                                  <button
                                    type={hydrated ? 'button' : 'submit'}
                                    name="action"
                                    value="deconnecter"
                                    className={`${menuItem} text-primary`}
                                    onClick={hydrated ? act(() => void signOut(user)) : undefined}
                                    aria-label={`${t('users.signOut')} : ${user.displayName}`}
                                  >
                                    {t('users.signOut')}
                                  </button>
                                ) : null}
                                {hydrated ? (
                                  <button
                                    type="button"
                                    className={`${menuItem} text-danger`}
                                    onClick={act((button) => void openDialog(button, () => setDeleting(user)))}
                                    aria-label={`${t('users.delete')} : ${user.displayName}`}
                                  >
                                    {t('users.delete')}
                                  </button>
                                ) : (
                                  <a
                                    className={`${menuItem} text-danger`}
                                    href={usersHref(search, page, { supprimer: user.id })}
                                    aria-label={`${t('users.delete')} : ${user.displayName}`}
                                  >
                                    {t('users.delete')}
                                  </a>
                                )}
                              </form>
                            </li>
                          )}
                        </ul>
                      </div>
                    </td>
                  </tr>
                );
              })
            )}
          </tbody>
        </table>
      </div>
      {pages > 1 ? (
        <nav aria-label={t('pager.label')} className="flex items-center gap-4">
          {page > 1 ? (
            <a className="btn btn-secondary" href={usersHref(search, page - 1)} onClick={go(page - 1)} rel="prev">
              {t('pager.previous')}
            </a>
          ) : null}
          <span className="text-sm">{t('pager.pageOf', { page, pages })}</span>
          {page < pages ? (
            <a className="btn btn-secondary" href={usersHref(search, page + 1)} onClick={go(page + 1)} rel="next">
              {t('pager.next')}
            </a>
          ) : null}
        </nav>
      ) : null}
      {adding && loaded ? <loaded.AddUserDialog factors={props.factors} onClose={() => setAdding(false)} returnFocus={returnFocus} /> : null}
      {deleting && loaded ? (
        <loaded.DeleteUserDialog factors={props.factors} user={deleting} onClose={() => setDeleting(null)} returnFocus={returnFocus} />
      ) : null}
      {stepUp && loaded ? <loaded.StepUpDialog factors={props.factors} onDone={stepUp} onClose={() => setStepUp(null)} returnFocus={returnFocus} /> : null}
    </section>
  );
}
