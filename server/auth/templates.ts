// French e-mails of the auth service, as text and HTML.
export type MailKind = 'verifyEmail' | 'passwordReset' | 'setPassword' | 'emailConfirmChange' | 'emailChangeNotice';

export type MailVars = { displayName: string; link: string; newEmail?: string };

type Content = { subject: string; intro: string | ((vars: MailVars) => string); action: string; outro: string };

const contents: Record<MailKind, Content> = {
  verifyEmail: {
    subject: 'Confirmez votre adresse e-mail',
    intro: "Pour activer votre compte sur l'application de l'atelier, confirmez votre adresse e-mail.",
    action: 'Confirmer mon adresse e-mail',
    outro: "Si vous n'êtes pas à l'origine de cette demande, ignorez ce message.",
  },
  passwordReset: {
    subject: 'Réinitialisation de votre mot de passe',
    intro: 'Une réinitialisation du mot de passe de votre compte a été demandée. Ce lien est valable une heure.',
    action: 'Choisir un nouveau mot de passe',
    outro: "Si vous n'avez rien demandé, ignorez ce message : votre mot de passe reste inchangé.",
  },
  setPassword: {
    subject: 'Votre compte a été créé',
    intro: "Un compte vient d'être créé pour vous sur l'application de l'atelier. Choisissez votre mot de passe pour l'activer.",
    action: 'Choisir mon mot de passe',
    outro: 'Ce lien est valable sept jours.',
  },
  emailConfirmChange: {
    subject: 'Confirmez votre nouvelle adresse e-mail',
    intro: 'Vous avez demandé à utiliser cette adresse pour votre compte. Confirmez-la pour terminer le changement.',
    action: 'Confirmer ma nouvelle adresse',
    outro: "Si vous n'êtes pas à l'origine de cette demande, ignorez ce message : votre adresse reste inchangée.",
  },
  // Sent to the current address: the owner learns of a change they may not have asked for.
  emailChangeNotice: {
    subject: 'Demande de changement de votre adresse e-mail',
    intro: (vars) =>
      `Une demande a été faite pour remplacer l'adresse e-mail de votre compte par ${vars.newEmail ?? 'une autre adresse'}. Elle ne prendra effet qu'une fois confirmée depuis la nouvelle adresse.`,
    action: "Si vous n'êtes pas à l'origine de cette demande, changez votre mot de passe",
    outro: "Tant que la nouvelle adresse n'est pas confirmée, votre adresse actuelle reste celle du compte.",
  },
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderMail(kind: MailKind, vars: MailVars) {
  const c = contents[kind];
  const intro = typeof c.intro === 'function' ? c.intro(vars) : c.intro;
  const greeting = vars.displayName ? `Bonjour ${vars.displayName},` : 'Bonjour,';
  const text = `${greeting}\n\n${intro}\n\n${c.action} :\n${vars.link}\n\n${c.outro}\n`;
  const html = `<!doctype html><html lang="fr"><body style="font-family:system-ui,sans-serif;color:#1f2937">
<p>${escapeHtml(greeting)}</p>
<p>${escapeHtml(intro)}</p>
<p><a href="${escapeHtml(vars.link)}" style="display:inline-block;padding:8px 16px;border-radius:8px;background:#1d4ed8;color:#fff;text-decoration:none">${escapeHtml(c.action)}</a></p>
<p style="font-size:13px;color:#4b5563">${escapeHtml(c.outro)}</p>
</body></html>`;
  return { subject: c.subject, text, html };
}
