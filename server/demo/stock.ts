// The demo workshop's gearbox stock: boxes on racks A–F (levels 1–4) over the nine demo models,
// the ones gone out of stock, and every movement of each (added, moved, condition changed,
// removed) with who made it. Drawn from a seeded generator, with dates counted back from a fixed
// day, so that every load gives the same stock (tests and screenshots rely on it).
import type { GearboxCondition, MovementKind } from '#lib/stock/stock.ts';
import { demoDossiers } from './dossiers.ts';

/** The day the demo stock is drawn back from: its boxes came in over the two years before. */
export const DEMO_STOCK_DAY = '2026-11-15';
const DAYS_BACK = 730;

/**
 * Who handles the stock: the demo accounts that may (admin, diagnostician, commercial) and the
 * colleagues in commercial who have signed in already; weights say who does it most.
 */
export const demoStockPeople = [
  { email: 'diagnostic@demo.local', name: 'Julien Moreau', weight: 4 },
  { email: 'commercial@demo.local', name: 'Sophie Laurent', weight: 4 },
  { email: 'admin@demo.local', name: 'Claire Dubois', weight: 1 },
  { email: 'elodie.roux@demo.local', name: 'Élodie Roux', weight: 2 },
  { email: 'aurelie.dupont@demo.local', name: 'Aurélie Dupont', weight: 2 },
] as const;
type Person = (typeof demoStockPeople)[number]['email'];
const SALES: Person[] = ['commercial@demo.local', 'elodie.roux@demo.local', 'aurelie.dupont@demo.local'];
const EXPERTS: Person[] = ['diagnostic@demo.local', 'diagnostic@demo.local', 'admin@demo.local'];

export type DemoStockMovement = {
  kind: MovementKind;
  at: Date;
  /** The e-mail of one of demoStockPeople. */
  by: Person;
  fromRack: string | null;
  fromLevel: number | null;
  toRack: string | null;
  toLevel: number | null;
  fromCondition: GearboxCondition | null;
  toCondition: GearboxCondition | null;
  reason: string;
};

export type DemoStockItem = {
  model: string;
  doctorCode: string | null;
  gearboxCode: string | null;
  condition: GearboxCondition;
  rack: string;
  level: number;
  addedOn: string;
  outOn: string | null;
  outReason: string;
  comment: string;
  /** 1 + the movements after 'added', as the stock service counts its changes. */
  version: number;
  /** Oldest first: 'added', then moves and condition changes, then 'removed' for a box gone. */
  movements: DemoStockMovement[];
};

// ---- The models: how many boxes of each (in stock, gone), where the workshop shelves them and
// what its comments speak of.

type DemoStockModel = {
  current: number;
  gone: number;
  /** The model's own rack; F holds boxes out of order and old material. */
  rack: string;
  /** Heavy longitudinal boxes stay on the two lower levels. */
  heavy: boolean;
  converter: boolean;
  /** What a box sold bare comes without. */
  bare: string;
  /** What the workshop renews when it reconditions one. */
  rebuilt: string;
};

const models: Record<string, DemoStockModel> = {
  'VW DQ200 0AM': {
    current: 22,
    gone: 7,
    rack: 'C',
    heavy: false,
    converter: false,
    bare: 'Sans mécatronique',
    rebuilt: 'double embrayage sec et fourchettes neufs',
  },
  'ZF 6HP26': {
    current: 18,
    gone: 6,
    rack: 'A',
    heavy: true,
    converter: true,
    bare: 'Sans mécatronique',
    rebuilt: 'convertisseur, embrayages et joints neufs',
  },
  'Aisin TF-80SC': {
    current: 18,
    gone: 6,
    rack: 'B',
    heavy: false,
    converter: true,
    bare: 'Sans bloc hydraulique',
    rebuilt: 'embrayages, électrovannes et joints neufs',
  },
  'Jatco JF011E': {
    current: 16,
    gone: 5,
    rack: 'E',
    heavy: false,
    converter: true,
    bare: 'Sans bloc hydraulique',
    rebuilt: 'courroie, roulements de poulies et joints neufs',
  },
  'ZF 8HP45': {
    current: 12,
    gone: 4,
    rack: 'A',
    heavy: true,
    converter: true,
    bare: 'Sans mécatronique',
    rebuilt: 'carter-filtre, convertisseur et joints neufs',
  },
  'VW DQ250 02E': { current: 12, gone: 4, rack: 'D', heavy: false, converter: false, bare: 'Sans mécatronique', rebuilt: 'embrayages K1/K2 et joints neufs' },
  'Aisin AW55-51SN': {
    current: 8,
    gone: 3,
    rack: 'B',
    heavy: false,
    converter: true,
    bare: 'Sans bloc hydraulique',
    rebuilt: 'embrayages, bloc hydraulique et joints neufs',
  },
  'Getrag 6DCT450': {
    current: 8,
    gone: 3,
    rack: 'D',
    heavy: false,
    converter: false,
    bare: 'Sans calculateur (TCM)',
    rebuilt: 'embrayages, TCM reprogrammé et joints neufs',
  },
  'PSA ETG6': {
    current: 6,
    gone: 2,
    rack: 'E',
    heavy: false,
    converter: false,
    bare: 'Sans robot de sélection',
    rebuilt: "actionneur d'embrayage et joints neufs",
  },
};
const RACKS = ['A', 'B', 'C', 'D', 'E', 'F'];

// ---- Stories: the conditions a box goes through (the first when added), and what is written on it.

type Path = GearboxCondition[];
type Story = { path: Path; comments: (m: DemoStockModel, rand: Rand) => string[] };

const cracked = (m: DemoStockModel) => (m.converter ? 'Carter fissuré côté convertisseur' : 'Carter fissuré côté embrayage');
const mileage = (rand: Rand) => `Déposée à ${60 + Math.floor(rand() * 160)} 000 km`;

/** Boxes in stock: mostly used or reconditioned, some new, some out of order, a few old material. */
const currentStories: [Story, number][] = [
  [
    {
      path: ['used'],
      comments: (m, rand) => [
        '',
        '',
        '',
        '',
        'Testée au banc, passages OK',
        'Déposée sur véhicule accidenté, boîte saine',
        m.bare,
        'Huile propre, pas de limaille au bouchon',
        mileage(rand),
      ],
    },
    38,
  ],
  [{ path: ['used', 'refurbished'], comments: (m) => ['Reconditionnée atelier, garantie 12 mois', `Reconditionnée atelier : ${m.rebuilt}`, ''] }, 14],
  [
    {
      path: ['refurbished'],
      comments: () => [
        'Échange standard, reçue reconditionnée',
        'Reconditionnée atelier, garantie 12 mois',
        'Achetée reconditionnée chez le spécialiste, garantie 12 mois',
        '',
      ],
    },
    14,
  ],
  [{ path: ['new'], comments: () => ["Neuve, emballage d'origine", 'Neuve, livrée avec huile et joints', 'Commande client annulée', ''] }, 9],
  [
    {
      path: ['out_of_order'],
      comments: (m) => [
        'Retour client — à expertiser',
        'Retour client — à expertiser',
        'Retour client — à expertiser',
        cracked(m),
        'Véhicule inondé : eau dans la boîte',
      ],
    },
    4,
  ],
  [{ path: ['used', 'out_of_order'], comments: (m) => ['Patine au banc — à démonter', 'Limaille au bouchon de vidange', cracked(m)] }, 4],
  [
    { path: ['out_of_order', 'refurbished'], comments: (m) => ['Retour client — reconditionnée, garantie 12 mois', `Reconditionnée atelier : ${m.rebuilt}`] },
    4,
  ],
  [{ path: ['old_material'], comments: (m) => ['Ancienne matière — pour pièces', m.bare, 'Carter réutilisable'] }, 2],
  [
    {
      path: ['used', 'old_material'],
      comments: (m) => [m.converter ? 'Gardée pour pièces (convertisseur, pompe)' : 'Gardée pour pièces (pignonnerie, carter)', 'Gardée pour pièces'],
    },
    3,
  ],
];

type Exit = { paths: [Path, number][]; reason: (out: string, rand: Rand) => string; by: Person[] | null };
const buyers = [
  'Garage Martin, Lyon',
  'Garage du Centre, Villeurbanne',
  'Auto Service Dupuis, Vienne',
  'Carrosserie Petit, Bron',
  'Garage des Alpes, Grenoble',
  "un particulier, retrait à l'atelier",
];

/** Boxes gone: sold, fitted on a repair order, sent away, scrapped or returned in a standard exchange. */
const exits: [Exit, number][] = [
  [
    {
      paths: [
        [['refurbished'], 3],
        [['used', 'refurbished'], 3],
        [['used'], 3],
        [['new'], 1],
      ],
      reason: (_out, rand) => `Vendue — ${pick(rand, buyers)}`,
      by: SALES,
    },
    10,
  ],
  [
    {
      paths: [
        [['refurbished'], 3],
        [['used', 'refurbished'], 3],
        [['used'], 3],
        [['new'], 1],
        [['out_of_order', 'refurbished'], 1],
      ],
      // Repair orders are numbered within their year, about three a working day.
      reason: (out, rand) => `Posée sur OR-${out.slice(0, 4)}-${String(Math.round(dayOfYear(out) * 2.2) + Math.floor(rand() * 3) + 1).padStart(4, '0')}`,
      by: null,
    },
    12,
  ],
  [
    {
      paths: [
        [['used'], 1],
        [['out_of_order'], 2],
        [['used', 'out_of_order'], 2],
      ],
      reason: () => 'Envoyée en reconditionnement chez le spécialiste',
      by: null,
    },
    6,
  ],
  [
    {
      paths: [
        [['out_of_order'], 2],
        [['used', 'out_of_order'], 2],
        [['old_material'], 1],
      ],
      reason: (_out, rand) => pick(rand, ['Mise au rebut : carter cassé', 'Mise au rebut : pignonnerie détruite', 'Mise au rebut : carter corrodé']),
      by: EXPERTS,
    },
    5,
  ],
  [
    {
      paths: [
        [['out_of_order'], 2],
        [['used'], 1],
      ],
      reason: () => 'Échange standard — retour fournisseur',
      by: SALES,
    },
    4,
  ],
];

// ---- The generator.

export type Rand = () => number;

/** mulberry32: small, fast and the same everywhere. */
export function generator(seed: number): Rand {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
/** One stream per model, so that changing one model's boxes leaves the others as they were. */
export const seedOf = (text: string) => [...text].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261);

export function pick<T>(rand: Rand, values: readonly T[]): T {
  return values[Math.floor(rand() * values.length)]!;
}
export function weighted<T>(rand: Rand, entries: readonly (readonly [T, number])[]): T {
  let left = rand() * entries.reduce((sum, [, w]) => sum + w, 0);
  for (const [value, w] of entries) if ((left -= w) < 0) return value;
  return entries[entries.length - 1]![0];
}
const anyone = demoStockPeople.map((p) => [p.email, p.weight] as const);
const personFrom = (rand: Rand, among: Person[] | null) => (among ? pick(rand, among) : weighted(rand, anyone));

const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayOfYear = (day: string) => Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${day.slice(0, 4)}-01-01T00:00:00Z`)) / DAY) + 1;

/** The working days (Monday to Friday) of the two years before DEMO_STOCK_DAY, oldest first. */
const workingDays: string[] = (() => {
  const end = Date.parse(`${DEMO_STOCK_DAY}T00:00:00Z`);
  const days: string[] = [];
  for (let ms = end - DAYS_BACK * DAY; ms < end; ms += DAY) {
    const weekday = new Date(ms).getUTCDay();
    if (weekday !== 0 && weekday !== 6) days.push(isoDay(ms));
  }
  return days;
})();

/** A time of the working day in France (7:00 to 17:00 UTC). */
const timeOn = (rand: Rand, day: string) =>
  new Date(`${day}T${String(7 + Math.floor(rand() * 10)).padStart(2, '0')}:${String(Math.floor(rand() * 60)).padStart(2, '0')}:00Z`);

/** `count` distinct sorted indexes strictly between `from` and `to`. */
function daysBetween(rand: Rand, from: number, to: number, count: number): number[] {
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(from + 1 + Math.floor(rand() * (to - from - 1)));
  return [...chosen].sort((a, b) => a - b);
}

function placeFor(rand: Rand, m: DemoStockModel, condition: GearboxCondition, not?: { rack: string; level: number }): { rack: string; level: number } {
  for (;;) {
    const aside = condition === 'out_of_order' || condition === 'old_material';
    const r = rand();
    const rack = aside && r < 0.7 ? 'F' : r < 0.85 ? m.rack : pick(rand, RACKS);
    const level = 1 + Math.floor(rand() * (m.heavy ? 2 : 4));
    if (!not || not.rack !== rack || not.level !== level) return { rack, level };
  }
}

function drawItem(rand: Rand, name: string, m: DemoStockModel, exit: Exit | null): DemoStockItem {
  const path = exit ? weighted(rand, exit.paths) : weighted(rand, currentStories).path;
  const changes = path.length - 1;
  let moves: number = weighted(rand, [
    [0, 6],
    [1, 3],
    [2, 1],
  ] as const);
  const last = workingDays.length; // an index past the last working day: the box is still in stock
  // When the box came in, and when it went out; the events between fall on distinct days.
  let added: number;
  let out: number;
  if (exit) {
    added = Math.floor(rand() * (last - 20));
    out = Math.min(last - 1, added + 5 + Math.floor(rand() * 170));
  } else {
    added = Math.floor(rand() * last);
    out = last;
  }
  if (out - added - 1 < changes + moves) moves = Math.max(0, out - added - 1 - changes);
  if (out - added - 1 < changes + moves) added = out - 1 - changes - moves;

  // Codes: most boxes carry a gearbox code of their model (and so its doctor code), some only a doctor code.
  const doctors = demoDossiers[name]?.doctorCodes ?? [];
  const r = rand();
  const doctor = doctors.length > 0 && r < 0.88 ? pick(rand, doctors) : null;
  const gearboxCode = doctor && r < 0.76 && doctor.gearboxCodes.length > 0 ? pick(rand, doctor.gearboxCodes) : null;

  let condition = path[0]!;
  let place = placeFor(rand, m, condition);
  const addedOn = workingDays[added]!;
  const movements: DemoStockMovement[] = [];
  const none = { fromRack: null, fromLevel: null, toRack: null, toLevel: null, fromCondition: null, toCondition: null, reason: '' };
  movements.push({
    ...none,
    kind: 'added',
    at: timeOn(rand, addedOn),
    by: personFrom(rand, null),
    toRack: place.rack,
    toLevel: place.level,
    toCondition: condition,
  });

  // Moves and condition changes in a random order, each on its own day.
  const kinds: ('moved' | 'condition')[] = [...Array<'moved'>(moves).fill('moved'), ...Array<'condition'>(changes).fill('condition')];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  const days = daysBetween(rand, added, out, kinds.length);
  let step = 1;
  kinds.forEach((kind, i) => {
    const at = timeOn(rand, workingDays[days[i]!]!);
    if (kind === 'moved') {
      const to = placeFor(rand, m, condition, place);
      movements.push({ ...none, kind, at, by: personFrom(rand, null), fromRack: place.rack, fromLevel: place.level, toRack: to.rack, toLevel: to.level });
      place = to;
    } else {
      const to = path[step++]!;
      movements.push({ ...none, kind, at, by: personFrom(rand, EXPERTS), fromCondition: condition, toCondition: to });
      condition = to;
    }
  });

  let outOn: string | null = null;
  let outReason = '';
  if (exit) {
    outOn = workingDays[out]!;
    outReason = exit.reason(outOn, rand);
    movements.push({
      ...none,
      kind: 'removed',
      at: timeOn(rand, outOn),
      by: personFrom(rand, exit.by),
      fromRack: place.rack,
      fromLevel: place.level,
      reason: outReason,
    });
  }
  // What was written on the box while on the shelf; a box gone has one less often.
  const comment = exit && rand() < 0.5 ? '' : pick(rand, commentsOf(path, m, rand));
  return {
    model: name,
    doctorCode: doctor?.code ?? null,
    gearboxCode,
    condition,
    rack: place.rack,
    level: place.level,
    addedOn,
    outOn,
    outReason,
    comment,
    version: movements.length,
    movements,
  };
}

/** The comments of the stock story that follows the same path. */
function commentsOf(path: Path, m: DemoStockModel, rand: Rand): string[] {
  const story = currentStories.find(([s]) => s.path.join() === path.join())?.[0];
  return story ? story.comments(m, rand) : [''];
}

/** The whole demo stock, in the order the boxes came in (their numbers follow it). */
export function demoStockItems(): DemoStockItem[] {
  const items = Object.entries(models).flatMap(([name, m]) => {
    const rand = generator(seedOf(name));
    return [
      ...Array.from({ length: m.current }, () => drawItem(rand, name, m, null)),
      ...Array.from({ length: m.gone }, () => drawItem(rand, name, m, weighted(rand, exits))),
    ];
  });
  return items.sort((a, b) => a.movements[0]!.at.getTime() - b.movements[0]!.at.getTime() || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
}
