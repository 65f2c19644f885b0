/// <reference types="astro/client" />

declare namespace App {
  interface Locals {
    /** The process's services, the domain ones bound to this request's viewer (decision 061): set by the session middleware. */
    services: import('#server/services.ts').RequestServices;
    /** The client's address, X-Forwarded-For read only as TRUST_PROXY allows (server/http/client-address.ts). */
    clientAddress: string;
    /** The signed-in user, loaded on every request; null when signed out. */
    user: import('#lib/auth/session-user.ts').SessionUser | null;
    /** The sign-in of the session cookie as the middleware opened it, with the account: no second look-up. */
    session: import('#server/auth/service.ts').SessionRow | null;
    /** Toasts flashed by the previous request. */
    flash: import('#lib/toasts.ts').FlashToast[];
    /** The profile menu's password dialog refused on the previous request: shown open on this page. */
    passwordDialog: import('#lib/auth/password-dialog.ts').PasswordDialogRefusal | null;
  }
}
