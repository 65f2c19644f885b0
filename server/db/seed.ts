// First run (an admin account) and the demo workshop. Later domains add their demo data here.
import { randomBytes } from 'node:crypto';
import { count } from 'drizzle-orm';
import type { Role } from '../../src/lib/roles.ts';
import { hashPassword, passwordPolicyError } from '../auth/passwords.ts';
import { ConfigError } from '../config.ts';
import type { Db } from './client.ts';
import { baseItems, users } from './schema/index.ts';
import type { BaseKind } from '../../src/lib/base.ts';

export const DEMO_PASSWORD = 'Demo-Atelier-2026!';

export const demoAccounts: { email: string; displayName: string; role: Role }[] = [
  { email: 'admin@demo.local', displayName: 'Claire Dubois', role: 'app_admin' },
  { email: 'diagnostic@demo.local', displayName: 'Julien Moreau', role: 'diagnostician' },
  { email: 'mecanicien@demo.local', displayName: 'Karim Benali', role: 'mechanic' },
  { email: 'commercial@demo.local', displayName: 'Sophie Laurent', role: 'commercial' },
];

/** The rest of the workshop's staff, so the users screen has more than one page. */
const staff: [string, Role][] = [
  ['Nathalie Garnier', 'diagnostician'], ['Thomas Lefèvre', 'mechanic'], ['Élodie Roux', 'commercial'],
  ['Mathieu Fournier', 'mechanic'], ['Camille Girard', 'diagnostician'], ['Nicolas Bonnet', 'mechanic'],
  ['Aurélie Dupont', 'commercial'], ['Julie Lambert', 'mechanic'], ['Sébastien Fontaine', 'diagnostician'],
  ['Laura Rousseau', 'commercial'], ['Pierre Vincent', 'mechanic'], ['Manon Muller', 'mechanic'],
  ['Antoine Lefebvre', 'diagnostician'], ['Chloé Faure', 'commercial'], ['Romain André', 'mechanic'],
  ['Pauline Mercier', 'mechanic'], ['Maxime Blanc', 'diagnostician'], ['Emma Guérin', 'commercial'],
  ['Hugo Boyer', 'mechanic'], ['Léa Garcia', 'mechanic'], ['Alexandre Chevalier', 'diagnostician'],
  ['Inès François', 'commercial'], ['Lucas Legrand', 'mechanic'], ['Sarah Gauthier', 'mechanic'],
  ['Olivier Perrin', 'app_admin'],
];

const emailOf = (name: string) =>
  `${name.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z]+/g, '.')}@demo.local`;

/** The base every diagnostic picks from, as a French workshop words it. */
const baseDemo: Record<BaseKind, string[]> = {
  condition: ['Moteur froid', 'Moteur chaud (plus de 80 °C)', 'Au démarrage', 'En accélération franche', 'En décélération', 'À vitesse stabilisée', 'En côte', 'Après un long trajet', 'En marche arrière', 'Au passage de N en D'],
  symptom: ['Patinage', 'À-coup au passage de rapport', 'Passage de rapport retardé', 'Mode dégradé (secours)', 'Voyant de boîte allumé', 'Sifflement', 'Vibrations au démarrage', 'Pas de marche arrière', 'Perte de puissance', 'Fuite d’huile'],
  component: ['Mécatronique', 'Convertisseur de couple', 'Bloc hydraulique', 'Électrovanne de pression', 'Capteur de régime de sortie', 'Double embrayage (K1/K2)', 'Pompe à huile', 'Calculateur de boîte (TCU)', 'Faisceau électrique', 'Courroie de variateur'],
  outage_type: ['Usure', 'Défaut électrique', 'Fuite', 'Grippage', 'Casse mécanique', 'Huile polluée', 'Défaut logiciel', 'Surchauffe'],
};

export async function countUsers(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users);
  return row?.n ?? 0;
}

/** A password that satisfies the policy of SPEC §5. */
function generatePassword(): string {
  return `${randomBytes(18).toString('base64url')}-Aa1!`;
}

/**
 * With no user at all: the admin of ADMIN_EMAIL / ADMIN_PASSWORD, or with a generated
 * password printed once. Skipped when the demo workshop brings its own admin.
 */
export async function createFirstAdmin(
  db: Db,
  options: { email?: string; password?: string; demoLoaded: boolean },
): Promise<{ email: string; generatedPassword?: string } | null> {
  if (!options.email && options.demoLoaded) return null;
  const email = (options.email ?? 'admin@atelier.local').toLowerCase();
  let password = options.password;
  if (password) {
    const problem = passwordPolicyError(password);
    if (problem) throw new ConfigError(`Invalid ADMIN_PASSWORD: ${problem}`);
  }
  const generatedPassword = password ? undefined : generatePassword();
  password ??= generatedPassword!;
  await db
    .insert(users)
    .values({ email, displayName: 'Administrateur', defaultRole: 'app_admin', emailVerified: true, passwordHash: await hashPassword(password) })
    .onConflictDoNothing();
  return { email, generatedPassword };
}

export async function seedDemoWorkshop(db: Db): Promise<void> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await db
    .insert(users)
    .values(demoAccounts.map((a) => ({ email: a.email, displayName: a.displayName, defaultRole: a.role, emailVerified: true, passwordHash })))
    .onConflictDoNothing();
  await db
    .insert(baseItems)
    .values(Object.entries(baseDemo).flatMap(([kind, names]) => names.map((name) => ({ kind, name }))))
    .onConflictDoNothing();
  // Colleagues: every other one has not chosen a password yet (status "e-mail non vérifié").
  await db
    .insert(users)
    .values(staff.map(([name, role], i) => ({ email: emailOf(name), displayName: name, defaultRole: role, emailVerified: i % 2 === 0, passwordHash: i % 2 === 0 ? passwordHash : null })))
    .onConflictDoNothing();
}
