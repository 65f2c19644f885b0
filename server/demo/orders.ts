// The demo workshop's repair orders: about sixty over the nine demo models, opened over the
// fourteen months before a fixed day, on vehicles that carry the model's gearbox, with what the
// workshop found and did and the earlier interventions on each gearbox. The oldest half are
// closed, the most recent still in progress. The orders the demo stock names on the boxes it
// fitted ("Posée sur OR-2026-0428") are among them, on the model of that box. Drawn from a seeded
// generator with dates counted back from a fixed day, as the demo stock is, so that every load
// gives the same orders (tests and screenshots rely on it).
import { addDays } from '#lib/format.ts';
import type { Energy, EngineSize, InterventionCategory, MileageBand, OrderStatus } from '#lib/repair-orders/repair-orders.ts';
import { demoDossiers } from './dossiers.ts';
import { DEMO_STOCK_DAY, demoStockItems, generator, pick, seedOf, weighted, type DemoStockItem, type Rand } from './stock.ts';

/** The day the orders are drawn back from, the demo stock's. */
export const DEMO_ORDERS_DAY = DEMO_STOCK_DAY;
/** The first day an order was opened: fourteen months before. */
export const DEMO_ORDERS_FROM = '2025-09-15';

/** Who may be an order's referent: the diagnosticians and admins of the demo; weights say who is most often. */
export const demoOrderReferents = [
  { email: 'diagnostic@demo.local', name: 'Julien Moreau', weight: 8 },
  { email: 'nathalie.garnier@demo.local', name: 'Nathalie Garnier', weight: 3 },
  { email: 'camille.girard@demo.local', name: 'Camille Girard', weight: 3 },
  { email: 'sebastien.fontaine@demo.local', name: 'Sébastien Fontaine', weight: 2 },
  { email: 'antoine.lefebvre@demo.local', name: 'Antoine Lefebvre', weight: 2 },
  { email: 'maxime.blanc@demo.local', name: 'Maxime Blanc', weight: 1 },
  { email: 'alexandre.chevalier@demo.local', name: 'Alexandre Chevalier', weight: 1 },
  { email: 'admin@demo.local', name: 'Claire Dubois', weight: 1 },
] as const;
type Referent = (typeof demoOrderReferents)[number]['email'];

export type DemoHistoryEntry = { mileage: number; intervention: string };

export type DemoOrder = {
  /** "OR-2026-0412": numbered within the year, increasing with the opening date. */
  number: string;
  model: string;
  openedOn: string;
  closedOn: string | null;
  status: OrderStatus;
  interventionCategory: InterventionCategory;
  /** As read on the box: one of its model's gearbox codes, or '' when the plate could not be read. */
  gearboxCode: string;
  /** The e-mail of one of demoOrderReferents. */
  referent: Referent;
  vehicleBrand: string;
  vehicleModel: string;
  energy: Energy;
  engineSize: EngineSize;
  mileage: MileageBand;
  constructionYear: number;
  comment: string;
  interventions: string[];
  outageParts: string[];
  /** Oldest first. */
  history: DemoHistoryEntry[];
  /** For an order a box of the demo stock was fitted on, the removal reason that box carries. */
  fittedBox: string | null;
  /** The fault codes read at intake (the diagnostic records them), and what the customer said. */
  codes: string[];
  symptom: string;
  createdAt: Date;
  updatedAt: Date;
};

// ---- The models: how many orders of each, the vehicles that carry the box, what the workshop
// finds on it and does, and what was done on it before.

/** Brand, model as written on the order, the doctor code of the dossier whose box it carries (null: its plate is never readable), energy, engine size, years built, weight. */
type Vehicle = [brand: string, model: string, doctor: string | null, energy: Energy, engineSize: EngineSize, from: number, to: number, weight: number];

/** A fault the workshop meets: what is reported, the codes read, the parts at fault, and what it does for each category of order. */
type Case = {
  weight: number;
  symptoms: string[];
  codes: string[];
  parts: string[];
  work: Partial<Record<InterventionCategory, [weight: number, lines: string[]]>>;
};

/** A box found beyond repair, exchanged for one of the stock: what was reported, what the teardown found, the parts at fault. */
type Exchange = [symptom: string, finding: string, parts: string[]];

type DemoOrderModel = {
  count: number;
  /** A mechatronics-only order: what the workshop checks on the bench first, and how the comment says who sent it. */
  unit: [check: string, sentBy: string];
  vehicles: Vehicle[];
  cases: Case[];
  /** After a box of the stock is fitted. */
  refill: string;
  exchanges: Exchange[];
  /** Earlier interventions on the gearbox, between two mileages. */
  history: [intervention: string, from: number, to: number][];
};

const MECHATRONICS: [string, string] = ['Contrôle de la mécatronique au banc', 'Mécatronique envoyée par'];
const VALVE_BODY: [string, string] = ['Contrôle du bloc hydraulique au banc', 'Bloc hydraulique envoyé par'];

const brokenGears: Exchange = [
  "Bruit de ferraille puis perte d'entraînement, véhicule remorqué.",
  'pignonnerie détruite (roulement de différentiel éclaté)',
  ['Pignonnerie', 'Différentiel'],
];
const crackedCase: Exchange = ["Fuite d'huile importante après un choc sur un trottoir.", 'carter de boîte fissuré', ['Carter de boîte']];
const seizedPump: Exchange = [
  'Patinage dans tous les rapports puis plus de marche avant.',
  'limaille dans tout le carter, pompe à huile grippée',
  ['Pompe à huile', 'Embrayages multidisques'],
];

const models: Record<string, DemoOrderModel> = {
  'ZF 8HP45': {
    count: 6,
    unit: MECHATRONICS,
    vehicles: [
      ['BMW', 'Série 3 320d (F30)', 'GA8HP45Z-N47', 'diesel', '1.8L_to_2.5L', 2012, 2014, 4],
      ['BMW', 'Série 5 520d (F10)', 'GA8HP45Z-N47', 'diesel', '1.8L_to_2.5L', 2010, 2014, 4],
      ['BMW', 'X3 xDrive20d (F25)', 'GA8HP45Z-N47', 'diesel', '1.8L_to_2.5L', 2011, 2014, 2],
      ['BMW', 'Série 3 328i (F30)', 'GA8HP45Z-N20', 'petrol', '1.8L_to_2.5L', 2012, 2015, 1],
      ['BMW', 'Série 5 528i (F10)', 'GA8HP45Z-N20', 'petrol', '1.8L_to_2.5L', 2011, 2016, 1],
    ],
    cases: [
      {
        weight: 3,
        symptoms: ['Mode secours en 3e, voyant boîte allumé.', 'Passe en mode dégradé par intermittence, message « Transmission » au combiné.'],
        codes: ['P0715', 'P0700'],
        parts: ['Mécatronique', 'Capteur de régime de turbine'],
        work: {
          complete_car: [3, ['Remplacement mécatronique', 'Vidange boîte avec carter-filtre', 'Réinitialisation des adaptations + apprentissage']],
          mechatronics_only: [2, ['Remplacement du capteur de régime de la mécatronique', 'Programmation de la mécatronique']],
        },
      },
      {
        weight: 2,
        symptoms: ['Vibrations entre 70 et 90 km/h sous faible charge.', 'Broutement en 7e et 8e sur autoroute.'],
        codes: ['P0741'],
        parts: ['Convertisseur de couple'],
        work: {
          complete_car: [
            3,
            [
              'Dépose-repose boîte',
              'Remplacement convertisseur de couple',
              'Vidange boîte avec carter-filtre',
              'Réinitialisation des adaptations + apprentissage',
            ],
          ],
          gearbox_only: [1, ['Remplacement convertisseur de couple', 'Remplacement joint à lèvre de sortie']],
        },
      },
      {
        weight: 3,
        symptoms: ["Tache d'huile sous la boîte, passages retardés à chaud.", 'Fuite au carter de boîte, niveau bas au contrôle.'],
        codes: [],
        parts: ['Carter-filtre', 'Douille de connecteur (passe-cloison)'],
        work: { complete_car: [1, ['Remplacement carter-filtre', 'Remplacement douille de connecteur', 'Vidange boîte + mise à niveau à chaud']] },
      },
      {
        weight: 2,
        symptoms: ['À-coups 2–3 et 3–4 à froid.', 'Passages durs à froid, huile jamais vidangée.'],
        codes: ['P0730'],
        parts: ['Électrovanne de pression', 'Mécatronique'],
        work: {
          complete_car: [2, ['Vidange boîte avec carter-filtre', 'Rinçage boîte', 'Réinitialisation des adaptations + apprentissage']],
          mechatronics_only: [1, ['Démontage et nettoyage des électrovannes EDS', 'Remplacement électrovannes EDS']],
        },
      },
    ],
    refill: 'Vidange boîte + réinitialisation des adaptations',
    exchanges: [brokenGears, crackedCase, seizedPump],
    history: [
      ['Mise à jour logiciel de boîte', 20_000, 90_000],
      ['Vidange boîte avec carter-filtre', 90_000, 140_000],
      ['Remplacement douille de connecteur', 100_000, 170_000],
    ],
  },

  'ZF 6HP26': {
    count: 8,
    unit: MECHATRONICS,
    vehicles: [
      ['BMW', 'Série 5 530d (E60)', 'GA6HP26Z-M57', 'diesel', '2.5L_to_7.0L', 2005, 2010, 4],
      ['BMW', 'Série 7 730d (E65)', 'GA6HP26Z-M57', 'diesel', '2.5L_to_7.0L', 2005, 2008, 2],
      ['BMW', 'X5 3.0d (E53)', 'GA6HP26Z-M57', 'diesel', '2.5L_to_7.0L', 2004, 2006, 2],
      ['Land Rover', 'Range Rover Sport 2.7 TDV6', '6HP26-TDV6', 'diesel', '2.5L_to_7.0L', 2005, 2009, 3],
      ['Land Rover', 'Discovery 3 2.7 TDV6', '6HP26-TDV6', 'diesel', '2.5L_to_7.0L', 2005, 2009, 3],
    ],
    cases: [
      {
        weight: 3,
        symptoms: [
          'Huile dans le connecteur de la mécatronique, codes aléatoires puis mode secours.',
          'Mode secours par intermittence, fuite au connecteur de boîte.',
        ],
        codes: ['P0700', 'P0750'],
        parts: ['Douille de connecteur (passe-cloison)', 'Carter-filtre'],
        work: { complete_car: [1, ['Remplacement douille de connecteur', 'Vidange boîte avec carter-filtre', 'Réinitialisation des adaptations']] },
      },
      {
        weight: 3,
        symptoms: ['À-coups 2–3 et 3–2, patinage du pontage à chaud.', 'Rétrogradage 3–2 brutal en décélération.'],
        codes: ['P0741'],
        parts: ['Bloc hydraulique', 'Mécatronique'],
        work: {
          complete_car: [
            2,
            [
              'Dépose mécatronique',
              'Révision du corps de valves (kit vanne de pontage)',
              'Vidange boîte avec carter-filtre',
              'Réinitialisation des adaptations + apprentissage',
            ],
          ],
          mechatronics_only: [2, ['Révision du corps de valves (kit vanne de pontage)', 'Remplacement des joints et clapets']],
        },
      },
      {
        weight: 2,
        symptoms: ['Patinage au passage 4–5, huile noire.', 'Patine en 5e et 6e, odeur de brûlé à la vidange.'],
        codes: ['P0730'],
        parts: ['Embrayages multidisques', 'Convertisseur de couple'],
        work: {
          complete_car: [
            2,
            [
              'Dépose-repose boîte',
              'Révision complète de la boîte (embrayages A et E)',
              'Remplacement convertisseur de couple',
              'Vidange boîte + apprentissage',
            ],
          ],
          gearbox_only: [
            2,
            ['Révision complète de la boîte (embrayages A et E)', 'Remplacement convertisseur de couple', 'Remplacement carter-filtre et douille'],
          ],
        },
      },
      {
        weight: 1,
        symptoms: ['Suintement au plan de joint du carter, passages retardés à chaud.'],
        codes: [],
        parts: ['Carter-filtre'],
        work: { complete_car: [1, ['Remplacement carter-filtre', 'Vidange boîte + mise à niveau à chaud']] },
      },
      {
        weight: 1,
        symptoms: ['Vibrations vers 1 800 tr/min en 5e et 6e.'],
        codes: ['P0741'],
        parts: ['Convertisseur de couple'],
        work: {
          complete_car: [
            1,
            ['Dépose-repose boîte', 'Remplacement convertisseur de couple', 'Vidange boîte avec carter-filtre', 'Réinitialisation des adaptations'],
          ],
        },
      },
    ],
    refill: 'Vidange boîte + réinitialisation des adaptations',
    exchanges: [brokenGears, crackedCase, seizedPump],
    history: [
      ['Vidange boîte avec carter-filtre', 70_000, 140_000],
      ['Remplacement douille de connecteur', 90_000, 180_000],
      ['Remplacement de la mécatronique', 130_000, 210_000],
    ],
  },

  'Aisin TF-80SC': {
    count: 8,
    unit: VALVE_BODY,
    vehicles: [
      ['Peugeot', '407 2.2 HDi 170', 'AM6-DW12', 'diesel', '1.8L_to_2.5L', 2006, 2010, 2],
      ['Peugeot', '508 2.2 HDi 204 GT', 'AM6-DW12', 'diesel', '1.8L_to_2.5L', 2011, 2014, 3],
      ['Citroën', 'C5 III 2.2 HDi 170', 'AM6-DW12', 'diesel', '1.8L_to_2.5L', 2008, 2012, 3],
      ['Volvo', 'XC60 D5 2.4', 'AM6-D5244', 'diesel', '1.8L_to_2.5L', 2008, 2015, 3],
      ['Volvo', 'S80 D5 2.4', 'AM6-D5244', 'diesel', '1.8L_to_2.5L', 2007, 2012, 1],
    ],
    cases: [
      {
        weight: 3,
        symptoms: ['Passages durs 2–3, huile noire jamais vidangée.', 'À-coup au passage 2–3 à chaud.'],
        codes: ['P0730', 'P0780'],
        parts: ['Bloc hydraulique', 'Électrovanne de pression'],
        work: {
          complete_car: [3, ['Vidange en trois passes', 'Remplacement du bloc hydraulique', 'Réinitialisation des auto-adaptatifs']],
          mechatronics_only: [1, ['Démontage et nettoyage du bloc hydraulique', 'Remplacement des électrovannes']],
        },
      },
      {
        weight: 2,
        symptoms: ['Broutement entre 60 et 80 km/h.', 'Vibrations à vitesse stabilisée vers 70 km/h.'],
        codes: ['P0741'],
        parts: ['Convertisseur de couple'],
        work: {
          complete_car: [3, ['Dépose-repose boîte', 'Remplacement du convertisseur', 'Vidange en trois passes']],
          gearbox_only: [1, ['Remplacement du convertisseur', 'Remplacement joint à lèvre de sortie']],
        },
      },
      {
        weight: 1,
        symptoms: ['Passages brutaux dans tous les rapports.'],
        codes: ['P0780'],
        parts: ['Électrovanne de pression'],
        work: { complete_car: [1, ['Remplacement du bloc hydraulique', 'Vidange en trois passes', 'Réinitialisation des auto-adaptatifs']] },
      },
      {
        weight: 1,
        symptoms: ['Passage 2–3 dur à froid depuis un remplacement de batterie.'],
        codes: [],
        parts: ['Calculateur de boîte (TCU)'],
        work: { complete_car: [1, ['Mise à jour du calculateur de boîte', 'Réinitialisation des auto-adaptatifs', 'Vidange en trois passes']] },
      },
    ],
    refill: 'Mise à niveau huile et réinitialisation des auto-adaptatifs',
    exchanges: [brokenGears, crackedCase, seizedPump],
    history: [
      ['Mise à jour du calculateur de boîte', 30_000, 90_000],
      ['Vidange boîte', 60_000, 120_000],
      ['Remplacement du convertisseur', 120_000, 180_000],
    ],
  },

  'Aisin AW55-51SN': {
    count: 5,
    unit: VALVE_BODY,
    vehicles: [
      ['Opel', 'Vectra C 1.9 CDTI 150', 'AF33-Z19', 'diesel', '1.8L_to_2.5L', 2004, 2008, 3],
      ['Opel', 'Signum 1.9 CDTI 150', 'AF33-Z19', 'diesel', '1.8L_to_2.5L', 2004, 2008, 1],
      ['Volvo', 'V70 2.4 170', 'AW55-B5244', 'petrol', '1.8L_to_2.5L', 2002, 2007, 3],
      ['Volvo', 'S60 2.4 170', 'AW55-B5244', 'petrol', '1.8L_to_2.5L', 2002, 2009, 2],
      ['Renault', 'Vel Satis 2.2 dCi 150', null, 'diesel', '1.8L_to_2.5L', 2003, 2008, 1],
    ],
    cases: [
      {
        weight: 3,
        symptoms: ['À-coup violent au passage 2–3 à chaud.', 'Passage 2–3 brutal une fois la boîte chaude.'],
        codes: ['P0730'],
        parts: ['Bloc hydraulique'],
        work: {
          complete_car: [2, ['Remplacement du corps de valves', 'Vidange boîte', 'Réinitialisation des adaptations']],
          mechatronics_only: [1, ['Révision du corps de valves (vanne de régulation, accumulateur C2)']],
          gearbox_only: [1, ['Remplacement du corps de valves', 'Contrôle des embrayages']],
        },
      },
      {
        weight: 2,
        symptoms: ['Passages durs et montée en régime entre 3 et 4.'],
        codes: ['P0750'],
        parts: ['Électrovanne de pression'],
        work: { complete_car: [1, ['Vidange boîte', "Remplacement de l'électrovanne SLS", 'Réinitialisation des adaptations']] },
      },
      {
        weight: 1,
        symptoms: ['Mode secours en 3e, compteur de vitesse figé.'],
        codes: [],
        parts: ['Capteur de régime de sortie', 'Faisceau électrique'],
        work: { complete_car: [1, ['Contrôle du faisceau', 'Remplacement du capteur de régime de sortie']] },
      },
      {
        weight: 1,
        symptoms: ["Patinage en 4e et 5e après le tractage d'une caravane, huile brûlée."],
        codes: ['P0730'],
        parts: ['Embrayages multidisques', 'Bloc hydraulique'],
        work: {
          complete_car: [1, ['Dépose-repose boîte', 'Révision complète de la boîte', 'Remplacement du corps de valves', 'Vidange boîte']],
          gearbox_only: [2, ['Révision complète de la boîte', 'Remplacement du corps de valves']],
        },
      },
    ],
    refill: 'Vidange boîte + réinitialisation des adaptations',
    exchanges: [brokenGears, crackedCase, seizedPump],
    history: [
      ['Reprogrammation du calculateur de boîte', 40_000, 120_000],
      ['Vidange boîte', 60_000, 150_000],
      ['Remplacement du corps de valves', 120_000, 200_000],
    ],
  },

  'VW DQ200 0AM': {
    count: 10,
    unit: MECHATRONICS,
    vehicles: [
      ['Volkswagen', 'Golf VI 1.4 TSI 122', 'DQ200-CAX', 'petrol', '0.6L_to_1.6L', 2009, 2012, 4],
      ['Skoda', 'Octavia II 1.4 TSI 122', 'DQ200-CAX', 'petrol', '0.6L_to_1.6L', 2008, 2012, 2],
      ['Audi', 'A3 (8P) 1.4 TFSI 125', 'DQ200-CAX', 'petrol', '0.6L_to_1.6L', 2008, 2012, 2],
      ['Seat', 'Leon II 1.4 TSI 125', 'DQ200-CAX', 'petrol', '0.6L_to_1.6L', 2009, 2012, 1],
      ['Volkswagen', 'Golf VI 1.6 TDI 105', 'DQ200-CAY', 'diesel', '0.6L_to_1.6L', 2009, 2012, 3],
      ['Volkswagen', 'Polo V 1.6 TDI 105', 'DQ200-CAY', 'diesel', '0.6L_to_1.6L', 2010, 2014, 2],
      ['Skoda', 'Octavia II 1.6 TDI 105', 'DQ200-CAY', 'diesel', '0.6L_to_1.6L', 2009, 2012, 1],
    ],
    cases: [
      {
        weight: 4,
        symptoms: ['À-coups au démarrage et patinage en côte.', 'Broutement au démarrage, patine en 1re.'],
        codes: ['P17BF'],
        parts: ['Double embrayage (K1/K2)'],
        work: {
          complete_car: [4, ['Remplacement double embrayage sec (K1/K2)', 'Réglage des butées', 'Apprentissage embrayages au diagnostic']],
          gearbox_only: [1, ['Remplacement double embrayage sec (K1/K2)', 'Contrôle des fourchettes', 'Réglage des butées']],
        },
      },
      {
        weight: 3,
        symptoms: ['Perte de pression hydraulique, voyant boîte clignotant.', 'Boîte au point mort en roulant, voyant allumé.'],
        codes: ['P189C', 'P0841'],
        parts: ['Mécatronique', 'Accumulateur de pression'],
        work: {
          mechatronics_only: [3, ['Remplacement accumulateur de pression', "Contrôle d'étanchéité de la mécatronique"]],
          complete_car: [2, ['Remplacement mécatronique', 'Remplissage huile de mécatronique', 'Apprentissage embrayages au diagnostic']],
        },
      },
      {
        weight: 1,
        symptoms: ['Claquements au ralenti et vibrations au démarrage.'],
        codes: [],
        parts: ['Volant bimasse', 'Double embrayage (K1/K2)'],
        work: { complete_car: [1, ['Remplacement volant bimasse', 'Remplacement double embrayage sec (K1/K2)', 'Apprentissage embrayages au diagnostic']] },
      },
      {
        weight: 1,
        symptoms: ['Rapports pairs impossibles, mode secours.', 'Plus de 2e, 4e ni 6e, voyant boîte allumé.'],
        codes: [],
        parts: ['Mécatronique', 'Carte électronique de la mécatronique'],
        work: {
          mechatronics_only: [2, ['Remplacement carte électronique de la mécatronique', 'Programmation de la mécatronique']],
          complete_car: [1, ['Remplacement mécatronique', 'Mise à jour du calculateur', 'Apprentissage embrayages au diagnostic']],
        },
      },
    ],
    refill: 'Apprentissage embrayages au diagnostic',
    exchanges: [
      [
        'Bruit de ferraille en 3e puis rapports impairs impossibles.',
        'fourchette de sélection cassée, pignon de 3e détruit',
        ['Fourchette de sélection', 'Pignonnerie'],
      ],
      brokenGears,
      crackedCase,
    ],
    history: [
      ['Mise à jour du calculateur de boîte', 10_000, 60_000],
      ['Remplacement mécatronique (prise en charge constructeur)', 40_000, 110_000],
      ['Remplacement double embrayage sec', 70_000, 140_000],
    ],
  },

  'VW DQ250 02E': {
    count: 6,
    unit: MECHATRONICS,
    vehicles: [
      ['Volkswagen', 'Golf V 2.0 TDI 140', 'DQ250-BKD', 'diesel', '1.8L_to_2.5L', 2004, 2008, 3],
      ['Volkswagen', 'Touran 2.0 TDI 140', 'DQ250-BKD', 'diesel', '1.8L_to_2.5L', 2004, 2010, 2],
      ['Audi', 'A3 (8P) 2.0 TDI 140', 'DQ250-BKD', 'diesel', '1.8L_to_2.5L', 2004, 2008, 1],
      ['Volkswagen', 'Passat B7 2.0 TDI 170', 'DQ250-CFG', 'diesel', '1.8L_to_2.5L', 2010, 2014, 3],
      ['Volkswagen', 'Tiguan 2.0 TDI 170', 'DQ250-CFG', 'diesel', '1.8L_to_2.5L', 2011, 2015, 2],
      ['Volkswagen', 'Golf V GTI 2.0 TFSI 200', null, 'petrol', '1.8L_to_2.5L', 2005, 2008, 1],
    ],
    cases: [
      {
        weight: 3,
        symptoms: ['À-coups au démarrage, voyant boîte clignotant.', 'Démarrages brutaux, boîte en mode secours après un arrêt.'],
        codes: ['P189C'],
        parts: ['Mécatronique', 'Capteur de pression'],
        work: {
          mechatronics_only: [2, ['Remplacement capteur de pression de la mécatronique']],
          complete_car: [2, ['Remplacement mécatronique', 'Vidange DSG avec filtre', 'Réglage de base au diagnostic']],
        },
      },
      {
        weight: 2,
        symptoms: ["Passage 1–2 brutal à froid, marche arrière lente à s'engager."],
        codes: ['P0841'],
        parts: ['Électrovanne de pression'],
        work: { complete_car: [1, ['Vidange DSG avec filtre', 'Réglage de base au diagnostic']] },
      },
      {
        weight: 2,
        symptoms: ['Broutement au démarrage en côte, vidanges de 60 000 km non faites.', 'Patine au démarrage, odeur de brûlé.'],
        codes: [],
        parts: ['Double embrayage (K1/K2)'],
        work: {
          complete_car: [
            3,
            ['Dépose-repose boîte', 'Remplacement double embrayage humide (K1/K2)', 'Vidange DSG avec filtre', 'Réglage de base au diagnostic'],
          ],
          gearbox_only: [1, ['Remplacement double embrayage humide (K1/K2)', 'Contrôle de la pignonnerie']],
        },
      },
      {
        weight: 1,
        symptoms: ['Rapports qui sautent à chaud.'],
        codes: ['P0868'],
        parts: ['Pompe à huile', 'Double embrayage (K1/K2)'],
        work: {
          complete_car: [1, ['Dépose-repose boîte', 'Remplacement pompe à huile', 'Remplacement double embrayage humide (K1/K2)', 'Vidange DSG avec filtre']],
          gearbox_only: [1, ['Remplacement pompe à huile', 'Remplacement double embrayage humide (K1/K2)']],
        },
      },
    ],
    refill: 'Vidange DSG + réglage de base au diagnostic',
    exchanges: [brokenGears, crackedCase, seizedPump],
    history: [
      ['Vidange DSG avec filtre', 55_000, 65_000],
      ['Vidange DSG avec filtre', 115_000, 125_000],
      ['Remplacement mécatronique', 100_000, 180_000],
    ],
  },

  'Jatco JF011E': {
    count: 8,
    unit: VALVE_BODY,
    vehicles: [
      ['Nissan', 'Qashqai (J10) 2.0 141', 'RE0F10A-MR20', 'petrol', '1.8L_to_2.5L', 2007, 2013, 4],
      ['Nissan', 'X-Trail (T31) 2.0 141', 'RE0F10A-MR20', 'petrol', '1.8L_to_2.5L', 2007, 2013, 2],
      ['Mitsubishi', 'Outlander II 2.4 170', 'F1CJA-4B12', 'petrol', '1.8L_to_2.5L', 2007, 2012, 2],
      ['Peugeot', '4007 2.4 170', 'F1CJA-4B12', 'petrol', '1.8L_to_2.5L', 2008, 2012, 1],
      ['Citroën', 'C-Crosser 2.4 170', 'F1CJA-4B12', 'petrol', '1.8L_to_2.5L', 2008, 2012, 1],
      ['Renault', 'Mégane III 2.0 16V 140 CVT', null, 'petrol', '1.8L_to_2.5L', 2009, 2013, 1],
    ],
    cases: [
      {
        weight: 3,
        symptoms: ["Sifflement et patinage à l'accélération.", 'Le régime monte sans que la voiture accélère.'],
        codes: [],
        parts: ['Courroie de variateur', 'Poulies'],
        work: {
          complete_car: [
            2,
            [
              'Dépose-repose boîte',
              'Remplacement du variateur (courroie et poulies)',
              'Vidange CVT avec filtres',
              "Réinitialisation du compteur de dégradation d'huile",
            ],
          ],
          gearbox_only: [2, ['Remplacement du variateur (courroie et poulies)', 'Remplacement des roulements de poulies']],
        },
      },
      {
        weight: 2,
        symptoms: ["Ronronnement qui croît avec la vitesse, limaille sur l'aimant du carter."],
        codes: [],
        parts: ['Roulement de poulie'],
        work: {
          complete_car: [1, ['Dépose-repose boîte', 'Remplacement roulement de poulie primaire', 'Vidange CVT avec filtres']],
          gearbox_only: [1, ['Remplacement roulement de poulie primaire', 'Contrôle des poulies']],
        },
      },
      {
        weight: 2,
        symptoms: ['Patinage au démarrage et à-coup à la reprise, huile jamais vidangée.'],
        codes: ['P0868'],
        parts: ['Électrovanne de pression', 'Bloc hydraulique'],
        work: {
          complete_car: [2, ['Vidange CVT avec filtres', 'Réinitialisation des apprentissages']],
          mechatronics_only: [1, ['Nettoyage du bloc hydraulique', 'Remplacement électrovanne de pression de ligne']],
        },
      },
      {
        weight: 1,
        symptoms: ['Mode secours, régime limité.'],
        codes: ['P0841'],
        parts: ['Capteur de pression'],
        work: { complete_car: [1, ['Remplacement capteur de pression secondaire', 'Vidange CVT avec filtres']] },
      },
      {
        weight: 1,
        symptoms: ["Mode protection en côte l'été, régime limité."],
        codes: ['P0711'],
        parts: ['Échangeur thermique'],
        work: { complete_car: [1, ['Remplacement échangeur thermique', 'Vidange CVT avec filtres', "Réinitialisation du compteur de dégradation d'huile"]] },
      },
    ],
    refill: 'Mise à niveau huile CVT et réinitialisation des apprentissages',
    exchanges: [
      ["Patinage brutal puis plus d'entraînement, véhicule remorqué.", 'courroie de variateur cassée, poulies détruites', ['Courroie de variateur', 'Poulies']],
      [
        'Bruit de roulement de plus en plus fort, limaille à la vidange.',
        'roulement de poulie primaire éclaté, limaille dans tout le carter',
        ['Roulement de poulie', 'Poulies'],
      ],
    ],
    history: [
      ['Mise à jour du calculateur de boîte', 30_000, 90_000],
      ['Vidange CVT', 60_000, 100_000],
      ['Remplacement échangeur thermique', 80_000, 150_000],
    ],
  },

  'Getrag 6DCT450': {
    count: 5,
    unit: ['Contrôle du calculateur de boîte au banc', 'Calculateur de boîte envoyé par'],
    vehicles: [
      ['Ford', 'Focus II 2.0 TDCi 136 Powershift', '6DCT450-UFDA', 'diesel', '1.8L_to_2.5L', 2008, 2011, 3],
      ['Ford', 'C-Max 2.0 TDCi 136 Powershift', '6DCT450-UFDA', 'diesel', '1.8L_to_2.5L', 2008, 2010, 1],
      ['Ford', 'Kuga 2.0 TDCi Powershift', '6DCT450-UFDA', 'diesel', '1.8L_to_2.5L', 2010, 2012, 1],
      ['Ford', 'Mondeo IV 2.0 TDCi Powershift', '6DCT450-UFDA', 'diesel', '1.8L_to_2.5L', 2008, 2014, 2],
      ['Volvo', 'V50 2.0 D Powershift', '6DCT450-D4204', 'diesel', '1.8L_to_2.5L', 2008, 2012, 2],
      ['Volvo', 'S40 2.0 D Powershift', '6DCT450-D4204', 'diesel', '1.8L_to_2.5L', 2008, 2012, 1],
      ['Volvo', 'C30 2.0 D Powershift', '6DCT450-D4204', 'diesel', '1.8L_to_2.5L', 2008, 2012, 1],
    ],
    cases: [
      {
        weight: 3,
        symptoms: ['Passages impossibles par intermittence, « Défaut boîte » au combiné.'],
        codes: ['P0700'],
        parts: ['Calculateur de boîte (TCU)'],
        work: {
          mechatronics_only: [2, ['Réparation du calculateur de boîte (soudures)', 'Programmation du calculateur']],
          complete_car: [2, ['Remplacement du calculateur de boîte', 'Programmation et apprentissage au diagnostic']],
        },
      },
      {
        weight: 2,
        symptoms: ['Broutement au démarrage et en marche arrière.'],
        codes: [],
        parts: ['Double embrayage (K1/K2)'],
        work: {
          complete_car: [3, ['Dépose-repose boîte', 'Remplacement double embrayage humide', 'Vidange de la boîte Powershift', 'Apprentissage au diagnostic']],
          gearbox_only: [1, ['Remplacement double embrayage humide', 'Remplacement joints de sortie de pont']],
        },
      },
      {
        weight: 1,
        symptoms: ['À-coups 1–2 et 2–3 à froid.'],
        codes: ['P0780'],
        parts: ['Électrovanne de pression'],
        work: { complete_car: [1, ['Vidange de la boîte Powershift', 'Apprentissage au diagnostic']] },
      },
      {
        weight: 1,
        symptoms: ['Fuite côté transmission droite, patinage à chaud.'],
        codes: ['P0868'],
        parts: ['Joint à lèvre de sortie'],
        work: { complete_car: [1, ['Remplacement joints à lèvre de sortie de pont', 'Vidange de la boîte Powershift']] },
      },
    ],
    refill: 'Vidange boîte + apprentissage',
    exchanges: [brokenGears, crackedCase, seizedPump],
    history: [
      ['Mise à jour du calculateur de boîte (campagne constructeur)', 20_000, 80_000],
      ['Vidange boîte', 60_000, 120_000],
      ['Remplacement du calculateur de boîte', 80_000, 150_000],
    ],
  },

  'PSA ETG6': {
    count: 4,
    unit: ["Contrôle du moteur d'embrayage au banc", "Moteur d'embrayage envoyé par"],
    vehicles: [
      ['Citroën', 'C4 Picasso 1.6 e-HDi 112 ETG6', 'MCP-DV6C', 'diesel', '0.6L_to_1.6L', 2010, 2013, 3],
      ['Citroën', 'C4 II 1.6 e-HDi 112 ETG6', 'MCP-DV6C', 'diesel', '0.6L_to_1.6L', 2011, 2014, 2],
      ['Peugeot', '308 1.6 HDi 110 BMP6', 'MCP-9HZ', 'diesel', '0.6L_to_1.6L', 2009, 2011, 2],
      ['Peugeot', '3008 1.6 HDi 110 BMP6', 'MCP-9HZ', 'diesel', '0.6L_to_1.6L', 2009, 2011, 2],
    ],
    cases: [
      {
        weight: 3,
        symptoms: ['Patinage en côte et démarrages en saccades.'],
        codes: [],
        parts: ['Embrayage'],
        work: { complete_car: [1, ['Remplacement kit embrayage', 'Apprentissage du point de léchage']] },
      },
      {
        weight: 2,
        symptoms: ['Démarrages brutaux puis embrayage qui ne se libère plus, « Défaut boîte de vitesses ».'],
        codes: ['P0700'],
        parts: ["Moteur d'embrayage"],
        work: {
          complete_car: [2, ["Remplacement du moteur d'embrayage", 'Apprentissage du point de léchage']],
          mechatronics_only: [1, ["Remise en état du moteur d'embrayage (tige grippée)"]],
        },
      },
      {
        weight: 1,
        symptoms: ['Rapports impossibles à engager, « - » au combiné.'],
        codes: ['P0780'],
        parts: ['Robot de sélection des rapports'],
        work: { complete_car: [1, ['Remplacement du capteur de position du robot', 'Apprentissage des positions de sélection']] },
      },
      {
        weight: 1,
        symptoms: ["Démarrages en saccades depuis l'achat du véhicule."],
        codes: [],
        parts: ['Calculateur de boîte (TCU)'],
        work: { complete_car: [1, ['Mise à jour du calculateur de boîte', 'Apprentissage du point de léchage']] },
      },
    ],
    refill: 'Apprentissage du point de léchage et des positions de sélection',
    exchanges: [brokenGears, crackedCase],
    history: [
      ['Mise à jour du calculateur et apprentissages', 10_000, 60_000],
      ['Remplacement kit embrayage', 70_000, 120_000],
      ["Remplacement du moteur d'embrayage", 80_000, 150_000],
    ],
  },
};

/** The garages that send the workshop a box or a mechatronics on its own. */
const garages = [
  'Garage Martin, Lyon',
  'Garage du Centre, Villeurbanne',
  'Auto Service Dupuis, Vienne',
  'Garage des Alpes, Grenoble',
  'Garage Moderne, Bourgoin-Jallieu',
  'Garage de la Gare, Villefranche-sur-Saône',
];
/** Why an order opened weeks ago is still in progress. */
const waiting = [
  'En attente de pièces (délai fournisseur).',
  "Devis envoyé, en attente d'accord.",
  'Pièces reçues, intervention planifiée.',
  "Client relancé pour l'accord du devis.",
];
/** The first thing done on an order; a mechatronics-only one starts with its model's bench check. */
const intake: Record<Exclude<InterventionCategory, 'mechatronics_only'>, string> = {
  complete_car: 'Lecture des codes défaut et essai routier',
  gearbox_only: 'Démontage et expertise de la boîte',
};
const closing: Record<InterventionCategory, string> = {
  complete_car: 'Essai routier de contrôle',
  gearbox_only: 'Essai au banc',
  mechatronics_only: 'Test au banc après réparation',
};
const boxCondition: Record<string, string> = { used: "d'occasion testée", refurbished: 'reconditionnée', new: 'neuve' };

// ---- Days.

const DAY = 86_400_000;
const isWorkingDay = (day: string) => ![0, 6].includes(new Date(`${day}T00:00:00Z`).getUTCDay());
/** `n` working days after `day` (before it when n < 0). */
function workingDaysFrom(day: string, n: number): string {
  let result = day;
  for (let left = Math.abs(n); left > 0; ) {
    result = addDays(result, Math.sign(n));
    if (isWorkingDay(result)) left--;
  }
  return result;
}
const dayOfYear = (day: string) => Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${day.slice(0, 4)}-01-01T00:00:00Z`)) / DAY) + 1;

/** The working days orders were opened on, oldest first. */
const openingDays: string[] = (() => {
  const days: string[] = [];
  for (let day = DEMO_ORDERS_FROM; day < DEMO_ORDERS_DAY; day = addDays(day, 1)) if (isWorkingDay(day)) days.push(day);
  return days;
})();

/** A time of the working day in France (7:00 to 17:00 UTC). */
const timeOn = (rand: Rand, day: string) =>
  new Date(`${day}T${String(7 + Math.floor(rand() * 10)).padStart(2, '0')}:${String(Math.floor(rand() * 60)).padStart(2, '0')}:00Z`);

const kmText = (km: number) => `${String(km).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')} km`;
const bandOf = (km: number): MileageBand =>
  km < 50_000 ? '0_to_50000' : km < 100_000 ? '50000_to_100000' : km < 150_000 ? '100000_to_150000' : km < 200_000 ? '150000_to_200000' : 'above_200000';

// ---- The generator.

/** The demo stock's boxes fitted on an order of the fourteen months. */
type FittedBox = { item: DemoStockItem; year: string; number: number };
const FITTED = /^Posée sur OR-(\d{4})-(\d{4})$/;

function fittedBoxes(): FittedBox[] {
  return demoStockItems().flatMap((item) => {
    const match = item.outOn && item.outOn >= DEMO_ORDERS_FROM && item.outOn < DEMO_ORDERS_DAY ? FITTED.exec(item.outReason) : null;
    return match ? [{ item, year: match[1]!, number: Number(match[2]) }] : [];
  });
}

/** An order before its number and status are known: those depend on the others. */
type Draft = Omit<DemoOrder, 'number' | 'status' | 'closedOn' | 'createdAt' | 'updatedAt'> & {
  /** The number the opening day gives (about 2.2 a day of the year), or the one the stock names. */
  natural: number;
  fixed: boolean;
  box: FittedBox | null;
  work: string[];
  withIntake: boolean;
  baseComment: string;
  closeDraw: number;
  waitingNote: string;
  openedAt: Date;
  /** The time of day of its last change, drawn now: the day depends on the other orders. */
  lastTime: [hour: number, minute: number];
};

const referents = demoOrderReferents.map((r) => [r.email, r.weight] as const);

function drawOrder(rand: Rand, name: string, m: DemoOrderModel, box: FittedBox | null): Draft {
  const doctors = demoDossiers[name]!.doctorCodes;
  const boxDoctor = box?.item.doctorCode ?? null;
  const vehicles = m.vehicles.filter((v) => (box ? v[2] !== null && (!boxDoctor || v[2] === boxDoctor) : true));
  const [vehicleBrand, vehicleModel, doctorCode, energy, engineSize, from, to] = weighted(
    rand,
    vehicles.map((v) => [v, v[7]] as const),
  );
  const doctor = doctors.find((d) => d.code === doctorCode);
  if (doctorCode && !doctor) throw new Error(`The demo orders name a doctor code ${name} does not have: ${doctorCode}`);
  const gearboxCode = box?.item.gearboxCode ?? (doctor ? pick(rand, doctor.gearboxCodes) : '');

  // Opened on a working day of the fourteen months; an order the stock names, some days before its box was fitted.
  let openedOn = pick(rand, openingDays);
  if (box) {
    for (let back = 1 + Math.floor(rand() * 5); back >= 0; back--) {
      openedOn = workingDaysFrom(box.item.outOn!, -back);
      if (openedOn >= DEMO_ORDERS_FROM && openedOn.slice(0, 4) === box.year) break;
    }
  }
  const constructionYear = from + Math.floor(rand() * (to - from + 1));
  const age = Number(openedOn.slice(0, 4)) + dayOfYear(openedOn) / 365 - (constructionYear + 0.5);
  const perYear = energy === 'diesel' ? 8_000 + rand() * 7_000 : 6_000 + rand() * 5_000;
  const km = Math.round((age * perYear) / 100) * 100;

  const fault = weighted(
    rand,
    m.cases.map((c) => [c, c.weight] as const),
  );
  const [category, [, work]]: [InterventionCategory, [number, string[]]] = box
    ? ['complete_car', [1, []]]
    : // A box or a mechatronics on its own comes from the garages the workshop works for: as often as a car.
      weighted(
        rand,
        (Object.entries(fault.work) as [InterventionCategory, [number, string[]]][]).map(
          (entry) => [entry, entry[1][0] * (entry[0] === 'complete_car' ? 1 : 2)] as const,
        ),
      );
  const exchange = box ? pick(rand, m.exchanges) : null;

  // Fault codes as read at intake, most of the time.
  const codes = fault.codes.length && rand() < 0.8 ? fault.codes.slice(0, 1 + Math.floor(rand() * fault.codes.length)) : [];
  const codeText =
    codes.length === 1 ? `Code ${codes[0]} mémorisé.` : codes.length ? `Codes ${codes.slice(0, -1).join(', ')} et ${codes[codes.length - 1]} mémorisés.` : '';
  const condition = box ? (boxCondition[box.item.condition] ?? "d'occasion") : '';
  const said = exchange ? exchange[0] : pick(rand, fault.symptoms);
  const comment = [
    said,
    exchange ? '' : codeText,
    exchange ? `Démontage : ${exchange[1]}, réparation non rentable. Échange par une boîte ${condition} du stock.` : '',
    category === 'gearbox_only' ? `Boîte déposée et apportée par ${pick(rand, garages)}.` : '',
    category === 'mechatronics_only' ? `${m.unit[1]} ${pick(rand, garages)}.` : '',
    category === 'complete_car' && rand() < 0.5 ? `Kilométrage relevé : ${kmText(km)}.` : '',
    doctorCode ? '' : 'Étiquette de la boîte illisible : code non relevé.',
  ].filter(Boolean);

  // Earlier interventions on this gearbox, below the mileage it has now.
  const count = weighted(rand, [
    [0, 3],
    [1, 4],
    [2, 3],
    [3, 1],
  ] as const);
  const possible = m.history.map((_, i) => i).filter((i) => m.history[i]![1] < km - 10_000);
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count, possible.length)) chosen.add(pick(rand, possible));
  const history = [...chosen]
    .map((i) => {
      const [intervention, low, high] = m.history[i]!;
      return { intervention, mileage: Math.round((low + rand() * (Math.min(high, km - 5_000) - low)) / 100) * 100 };
    })
    .sort((a, b) => a.mileage - b.mileage);

  const natural = box ? box.number : Math.round(dayOfYear(openedOn) * 2.2) + 1 + Math.floor(rand() * 3);
  return {
    model: name,
    openedOn,
    interventionCategory: category,
    gearboxCode,
    referent: weighted(rand, referents),
    vehicleBrand,
    vehicleModel,
    energy,
    engineSize,
    mileage: bandOf(km),
    constructionYear,
    comment: '',
    interventions: [],
    outageParts: exchange ? exchange[2] : fault.parts,
    history,
    fittedBox: box ? box.item.outReason : null,
    codes,
    symptom: said,
    natural,
    fixed: !!box,
    box,
    work: box ? ['Dépose boîte', 'Démontage et expertise de la boîte', `Pose d'une boîte ${condition} du stock`, m.refill] : work,
    withIntake: rand() < 0.7,
    baseComment: comment.join(' '),
    closeDraw: rand(),
    waitingNote: pick(rand, waiting),
    openedAt: timeOn(rand, openedOn),
    lastTime: [7 + Math.floor(rand() * 10), Math.floor(rand() * 60)],
  };
}

/**
 * The whole set of demo orders, oldest first: numbers rise with the opening date, within each
 * year; the older half closed, the most recent still in progress.
 */
export function demoRepairOrders(): DemoOrder[] {
  const boxes = fittedBoxes();
  const drafts = Object.entries(models).flatMap(([name, m]) => {
    const rand = generator(seedOf(`orders ${name}`));
    const named = boxes.filter((b) => b.item.model === name).map((box) => drawOrder(rand, name, m, box));
    return [...named, ...Array.from({ length: Math.max(0, m.count - named.length) }, () => drawOrder(rand, name, m, null))];
  });
  // The orders the stock names were opened in the order of their numbers.
  const named = drafts.filter((d) => d.fixed).sort((a, b) => a.openedOn.slice(0, 4).localeCompare(b.openedOn.slice(0, 4)) || a.natural - b.natural);
  named.forEach((d, i) => {
    const before = named[i - 1];
    if (before && before.openedOn > d.openedOn) d.openedOn = before.openedOn;
  });
  drafts.sort((a, b) =>
    a.openedOn !== b.openedOn ? (a.openedOn < b.openedOn ? -1 : 1) : a.natural - b.natural || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0),
  );

  // Numbers: each order's own, kept rising, below the next one the stock names.
  const numbers: number[] = [];
  drafts.forEach((d, i) => {
    const year = d.openedOn.slice(0, 4);
    const previous = i > 0 && drafts[i - 1]!.openedOn.slice(0, 4) === year ? numbers[i - 1]! : 0;
    let number = d.fixed ? d.natural : Math.max(d.natural, previous + 1);
    if (!d.fixed) {
      const next = drafts.findIndex((later, j) => j > i && later.fixed && later.openedOn.slice(0, 4) === year);
      if (next > 0) number = Math.min(number, drafts[next]!.natural - (next - i));
    }
    if (number <= previous) throw new Error(`Demo order numbers out of order at ${d.openedOn}`);
    numbers.push(number);
  });

  const closedCount = Math.round(drafts.length / 2);
  const recent = addDays(DEMO_ORDERS_DAY, -10);
  const longAgo = addDays(DEMO_ORDERS_DAY, -21);
  return drafts.map((d, i): DemoOrder => {
    // An order the stock fitted a box on some time ago is closed too.
    const closed = i < closedCount || (!!d.box && d.box.item.outOn! < recent);
    let closedOn: string | null = null;
    if (closed) {
      // A few days to three weeks after it was opened; after the box of the stock was fitted.
      closedOn = d.box ? workingDaysFrom(d.box.item.outOn!, 1 + Math.floor(d.closeDraw * 3)) : addDays(d.openedOn, 3 + Math.floor(d.closeDraw * 17));
      while (!isWorkingDay(closedOn)) closedOn = addDays(closedOn, 1);
    }
    const justOpened = !closed && !d.box && d.openedOn >= recent;
    const first = d.interventionCategory === 'mechatronics_only' ? models[d.model]!.unit[0] : intake[d.interventionCategory];
    const interventions = justOpened ? [first] : [...(d.withIntake ? [first] : []), ...d.work, ...(closed ? [closing[d.interventionCategory]] : [])];
    let comment = d.baseComment;
    if (!closed && !d.box && d.openedOn < longAgo) comment += ` ${d.waitingNote}`;
    const { natural: _n, fixed: _f, box: _b, work: _w, withIntake: _i, baseComment: _c, closeDraw: _d, waitingNote: _wn, openedAt, lastTime, ...order } = d;
    const lastDay = closedOn ?? d.box?.item.outOn ?? null;
    return {
      ...order,
      number: `OR-${d.openedOn.slice(0, 4)}-${String(numbers[i]).padStart(4, '0')}`,
      status: closed ? 'CLOSED' : 'IN_PROGRESS',
      closedOn,
      comment,
      interventions,
      // Not known before the diagnostic.
      outageParts: justOpened ? [] : d.outageParts,
      createdAt: openedAt,
      updatedAt: lastDay
        ? new Date(Math.max(openedAt.getTime(), Date.parse(`${lastDay}T${String(lastTime[0]).padStart(2, '0')}:${String(lastTime[1]).padStart(2, '0')}:00Z`)))
        : openedAt,
    };
  });
}
