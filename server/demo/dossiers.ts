// The technical dossiers of the demo workshop's gearbox models, as the workshop records them:
// doctor and gearbox codes, the outages met, the repair procedures that fix them, the measures
// taken on the bench and a reference curve (a CSV, as the diagnostic tools export it).

export type DemoDoctorCode = { code: string; businessName: string; tvsCode: string; engine: string; gearboxCodes: string[] };
/** Component and outage type (base names), share of orders in %, average mileage, description, procedures by priority. */
export type DemoOutage = [component: string, outageType: string, occurrenceRate: number, averageMileage: number, description: string, procedures: string[]];
export type DemoProcedure = { name: string; description: string; steps: string[]; checkpoints: [name: string, description: string][] };
export type DemoMeasure = { name: string; unit: string; minimum: number; maximum: number; description: string };
export type DemoCurve = { fileName: string; title: string; comment: string; csv: string };
export type DemoDossier = { doctorCodes: DemoDoctorCode[]; outages: DemoOutage[]; procedures: DemoProcedure[]; measures: DemoMeasure[]; curve: DemoCurve };

// ---- Curves: computed once, written with a decimal comma and `;` as a French spreadsheet does.

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
/** 0 before 0, 1 after 1, a smooth S between. */
const smooth = (x: number) => {
  const c = clamp01(x);
  return c * c * (3 - 2 * c);
};
/** A half-sine bump of height 1 between t0 and t0 + width. */
const bump = (t: number, t0: number, width: number) => (t >= t0 && t <= t0 + width ? Math.sin((Math.PI * (t - t0)) / width) : 0);
const fr = (n: number, digits: number) => (Math.abs(n) < 0.5 * 10 ** -digits ? 0 : n).toFixed(digits).replace('.', ',');

/** `rows` lines of `header`'s columns; x = start + i × step. */
function csv(header: string, rows: number, start: number, step: number, xDigits: number, cells: (x: number) => string[]): string {
  const lines = [header];
  for (let i = 0; i < rows; i++) {
    const x = start + i * step;
    lines.push([fr(x, xDigits), ...cells(x)].join(';'));
  }
  return `${lines.join('\r\n')}\r\n`;
}
/** A nominal value and its tolerance band, never below zero. */
const band = (value: number, tolerance: number, digits: number) => [fr(Math.max(0, value - tolerance), digits), fr(value + tolerance, digits)];

// 8HP45: line pressure, idle in D, throttle at 0.5 s, 1→2 at 4 s and 2→3 at 8 s.
const linePressure8hp = (t: number) =>
  4 +
  5 * smooth((t - 0.5) / 1) -
  0.12 * Math.max(0, t - 1.5) -
  1.2 * smooth((t - 4) / 0.6) -
  0.9 * smooth((t - 8) / 0.6) +
  1.5 * bump(t, 4, 0.6) +
  1.2 * bump(t, 8, 0.6);
// 6HP26: an EDS falls from its full pressure to nothing as its current rises.
const edsPressure6hp = (mA: number) => 0.1 + 4.5 * (1 - smooth((mA - 100) / 700));
// TF-80SC: line pressure in D from idle to the stall speed.
const linePressureTf80 = (rpm: number) => 4.1 + 8.2 * clamp01((rpm - 700) / 1700) ** 1.6;
// AW55-51SN: the oil temperature sensor, an NTC of 2.2 kΩ at 25 °C (B = 3500).
const ntcAw55 = (celsius: number) => 2.2 * Math.exp(3500 * (1 / (celsius + 273.15) - 1 / 298.15));
// DQ200: torque the dry clutch K1 carries along the actuator's travel, kiss point 4–5 mm.
const clutchTorqueDq200 = (mm: number, kissPoint: number) => Math.min(250, 250 * clamp01((mm - kissPoint) / (9.5 - kissPoint)) ** 1.8);
// DQ250: K1 pressure on a start, filling pulse, kiss point, slip then closed.
const k1PressureDq250 = (t: number) => 3 * bump(t, 0, 0.15) + 1.5 * smooth(t / 0.15) + 6.5 * smooth((t - 0.4) / 1.6) + 2 * smooth((t - 2) / 0.6);
// JF011E: engine speed at a quarter of the load, from the lowest ratio (2.349) to the highest (0.394).
const rpmJf011 = (kmh: number) => Math.max(1050, 18.4 * kmh, Math.min(109.7 * kmh, 1450 + 3 * kmh));
// 6DCT450: a 1→2 upshift, C1 opens while C2 fills and closes.
const c1Pressure6dct = (t: number) => 9 - 8.7 * smooth((t - 0.6) / 0.3);
const c2Pressure6dct = (t: number) => 2.5 * bump(t, 0.3, 0.1) + 1.2 * smooth((t - 0.3) / 0.05) + 4.8 * smooth((t - 0.6) / 0.3) + 3 * smooth((t - 0.9) / 0.4);
// ETG6: clutch travel on a 2→3 change, released by the robot then brought back past the kiss point.
const clutchTravelEtg6 = (t: number) => 9 * smooth((t - 0.1) / 0.2) - 3.5 * smooth((t - 0.8) / 0.15) - 5.5 * smooth((t - 0.95) / 0.35);

// ---- The dossiers.

export const demoDossiers: Record<string, DemoDossier> = {
  'ZF 8HP45': {
    doctorCodes: [
      {
        code: 'GA8HP45Z-N47',
        businessName: 'Steptronic 8 — BMW 320d / 520d',
        tvsCode: '8HP45-B1',
        engine: '2.0 d N47D20 (184 ch)',
        gearboxCodes: ['1087 010 068', '1087 010 122'],
      },
      {
        code: 'GA8HP45Z-N20',
        businessName: 'Steptronic 8 — BMW 328i / 528i',
        tvsCode: '8HP45-B2',
        engine: '2.0 i N20B20 (245 ch)',
        gearboxCodes: ['1087 010 131'],
      },
    ],
    outages: [
      [
        'Mécatronique',
        'Défaut électrique',
        18,
        142000,
        'Capteur de régime intégré à la mécatronique hors service : mode secours en 3e.',
        ['Échange de la mécatronique'],
      ],
      [
        'Convertisseur de couple',
        'Usure',
        11,
        175000,
        'Embrayage de pontage usé : vibrations à 70–90 km/h sous faible charge.',
        ['Remplacement du convertisseur de couple'],
      ],
      [
        'Carter-filtre',
        'Fuite',
        14,
        120000,
        'Carter plastique à filtre intégré déformé : suintement au plan de joint, niveau bas et passages retardés à chaud.',
        ['Vidange complète avec carter-filtre'],
      ],
      [
        'Électrovanne de pression',
        'Huile polluée',
        9,
        160000,
        'Électrovannes de pression (EDS) encrassées par une huile jamais vidangée : à-coups 2–3 et 3–4 à froid, adaptations en butée.',
        ['Vidange complète avec carter-filtre', 'Échange de la mécatronique'],
      ],
    ],
    procedures: [
      {
        name: 'Vidange complète avec carter-filtre',
        description: 'Le carter plastique porte le filtre : il se remplace à chaque vidange, avec la douille de connecteur.',
        steps: [
          "Lire les codes défaut et relever les valeurs d'adaptation au diagnostic avant toute intervention.",
          "Véhicule à plat sur le pont, levier en P, température d'huile relevée au diagnostic inférieure à 30 °C.",
          'Vidanger puis déposer le carter-filtre ; contrôler les dépôts sur les aimants (limaille, particules de garniture).',
          'Remplacer la douille de connecteur de la mécatronique et ses joints toriques.',
          'Poser le carter-filtre neuf avec des vis neuves, serrées en croix au couple prescrit.',
          "Remplir en ZF Lifeguard 8 par l'orifice de remplissage jusqu'au débordement, moteur arrêté.",
          'Moteur tournant, passer toutes les positions du levier puis refaire le niveau au débordement entre 30 et 40 °C.',
          'Réinitialiser les adaptations de boîte au diagnostic.',
          "Essai routier d'apprentissage de 20 km : passages de 1 à 8 en charge légère puis rétrogradages au freinage.",
        ],
        checkpoints: [
          ['Niveau au débordement', "Huile entre 30 et 40 °C au diagnostic, moteur tournant en P : l'huile affleure l'orifice de remplissage."],
          ['Étanchéité du carter et de la douille', "Après l'essai, véhicule sur le pont : plan de joint et douille de connecteur secs."],
          ['Passages après apprentissage', 'Aucun code défaut mémorisé ; passages 1–2, 2–3 et 3–4 sans à-coup à froid comme à chaud.'],
        ],
      },
      {
        name: 'Échange de la mécatronique',
        description: 'Mécatronique échange standard ou réparée, programmée au véhicule.',
        steps: [
          'Relever les codes défaut, le numéro de logiciel et le codage de la mécatronique.',
          'Vidanger et déposer le carter-filtre.',
          'Débrancher la douille de connecteur et déposer les vis de fixation de la mécatronique (ne pas toucher aux vis du corps de valves).',
          'Déposer la mécatronique en la basculant pour dégager le levier de sélection et le verrou de parking.',
          'Contrôler les tubes de transfert et les joints de la plaque intermédiaire ; remplacer ceux qui sont durcis.',
          'Poser la mécatronique, serrer au couple en croix, brancher une douille neuve.',
          'Poser un carter-filtre neuf, remplir en ZF Lifeguard 8 et refaire le niveau entre 30 et 40 °C.',
          'Programmer et coder la mécatronique au véhicule, puis réinitialiser les adaptations.',
          'Essai routier de 20 km en charge légère puis en charge forte, sans utiliser le mode manuel.',
        ],
        checkpoints: [
          ['Codes défaut', "Aucun code présent ni mémorisé après l'essai routier."],
          ['Cohérence des régimes', 'Au diagnostic, en 8e à 100 km/h, pontage fermé : régime turbine égal au régime de sortie × 0,667 (± 20 tr/min).'],
          ['Pression de ligne au ralenti', 'En P, huile à 80 °C : relever la valeur au diagnostic et la comparer à la mesure de référence.'],
        ],
      },
      {
        name: 'Remplacement du convertisseur de couple',
        description: 'Convertisseur neuf ou reconditionné, boîte déposée.',
        steps: [
          "Déposer l'arbre de transmission, soutenir le moteur et déposer la boîte.",
          'Déposer le convertisseur ; contrôler la bague du moyeu et la portée du joint à lèvre de la pompe.',
          "Remplacer le joint à lèvre d'entrée de boîte.",
          "Remplir le convertisseur de 1 l d'huile et le poser en le tournant jusqu'à l'engagement complet des cannelures de la pompe.",
          "Reposer la boîte en serrant les vis du convertisseur au couple, sans forcer l'engagement.",
          'Remplir, refaire le niveau entre 30 et 40 °C et réinitialiser les adaptations.',
          'Essai routier en pontage fermé entre 70 et 90 km/h sous faible charge.',
        ],
        checkpoints: [
          [
            "Cote d'engagement du convertisseur",
            "Entre la face du carter et l'appui du moyeu : la cote doit être celle du constructeur avant de reposer la boîte.",
          ],
          ['Glissement du pontage', 'Au diagnostic, pontage fermé à 80 km/h : écart entre régime moteur et régime turbine inférieur à 20 tr/min.'],
          ['Vibrations', 'Plus aucune vibration entre 70 et 90 km/h sous faible charge.'],
        ],
      },
    ],
    measures: [
      { name: 'Pression de ligne au ralenti (P)', unit: 'bar', minimum: 3.5, maximum: 4.5, description: 'Relevée au diagnostic, huile à 80 °C, levier en P.' },
      {
        name: 'Résistance électrovanne EDS',
        unit: 'Ω',
        minimum: 4.5,
        maximum: 6.5,
        description: "Mesurée à l'ohmmètre sur la douille de connecteur, à 20 °C.",
      },
      {
        name: "Température d'huile en fin d'essai",
        unit: '°C',
        minimum: 70,
        maximum: 90,
        description: "Lue au diagnostic à la fin de l'essai routier de 20 km.",
      },
      {
        name: 'Glissement du convertisseur, pontage fermé',
        unit: 'tr/min',
        minimum: 0,
        maximum: 20,
        description: 'Écart régime moteur / régime turbine en 8e à 80 km/h.',
      },
    ],
    curve: {
      fileName: 'courbe-pression-8hp45.csv',
      title: 'Pression de ligne — passages 1→2→3 à mi-charge',
      comment:
        "Relevé sur boîte saine, huile à 80 °C, accélération à mi-charge depuis l'arrêt. En dehors de la bande : contrôler les EDS puis la mécatronique.",
      csv: csv('temps_s;pression_min_bar;pression_max_bar', 121, 0, 0.1, 1, (t) => band(linePressure8hp(t), 0.5, 2)),
    },
  },

  'ZF 6HP26': {
    doctorCodes: [
      {
        code: 'GA6HP26Z-M57',
        businessName: 'Steptronic 6 — BMW 530d / 730d',
        tvsCode: '6HP26-B1',
        engine: '3.0 d M57D30 (231 ch)',
        gearboxCodes: ['1068 010 043', '1068 010 047'],
      },
      {
        code: '6HP26-TDV6',
        businessName: 'CommandShift — Range Rover Sport / Discovery 3',
        tvsCode: '6HP26-L1',
        engine: '2.7 TDV6 276DT (190 ch)',
        gearboxCodes: ['1068 030 030'],
      },
    ],
    outages: [
      [
        'Douille de connecteur (passe-cloison)',
        'Fuite',
        24,
        130000,
        'Douille du connecteur de mécatronique poreuse : huile dans le connecteur, codes aléatoires puis mode secours.',
        ['Vidange avec carter-filtre et douille'],
      ],
      [
        'Bloc hydraulique',
        'Usure',
        21,
        165000,
        'Alésages du corps de valves usés (vanne de pontage) : à-coups 2–3 et 3–2, patinage du pontage à chaud.',
        ['Révision du corps de valves', 'Vidange avec carter-filtre et douille'],
      ],
      [
        'Embrayages multidisques',
        'Usure',
        15,
        190000,
        'Garnitures des embrayages A et E usées, huile jamais vidangée : patinage au passage 4–5 et P0730 mémorisé.',
        ['Révision de la boîte'],
      ],
      [
        'Carter-filtre',
        'Fuite',
        12,
        110000,
        'Carter plastique déformé : suintement au plan de joint, niveau bas et passages retardés à chaud.',
        ['Vidange avec carter-filtre et douille'],
      ],
      [
        'Convertisseur de couple',
        'Usure',
        9,
        180000,
        'Embrayage de pontage usé : vibrations vers 1 800 tr/min en 5e et 6e, P0741 mémorisé.',
        ['Révision de la boîte'],
      ],
    ],
    procedures: [
      {
        name: 'Vidange avec carter-filtre et douille',
        description: 'Vidange unique, carter-filtre et douille de connecteur neufs.',
        steps: [
          'Lire les codes défaut et relever les adaptations au diagnostic.',
          'Vidanger boîte froide, déposer le carter-filtre et nettoyer les aimants.',
          'Remplacer la douille de connecteur et ses deux joints toriques ; sécher le connecteur au nettoyant contact.',
          'Poser le carter-filtre neuf avec des vis neuves, serrées en croix au couple prescrit.',
          "Remplir en ZF Lifeguard 6 jusqu'au débordement, moteur arrêté.",
          'Moteur tournant, passer toutes les positions du levier puis refaire le niveau au débordement entre 30 et 50 °C.',
          "Réinitialiser les adaptations et faire l'essai routier d'apprentissage.",
        ],
        checkpoints: [
          ['Connecteur sec', "Après l'essai, débrancher le connecteur : aucune trace d'huile côté faisceau."],
          ['Niveau au débordement', 'Entre 30 et 50 °C au diagnostic, moteur tournant en P.'],
        ],
      },
      {
        name: 'Révision du corps de valves',
        description: 'Corps de valves déposé, vannes usées remplacées par des vannes en cote réparation.',
        steps: [
          'Vidanger, déposer le carter-filtre et la mécatronique.',
          'Séparer le corps de valves de la platine électronique, en repérant chaque ressort et chaque tiroir.',
          'Contrôler les alésages au test de dépression ; remplacer la vanne de pontage et les vannes usées par des vannes en cote réparation.',
          'Nettoyer les plaques et remonter avec des joints neufs, au couple prescrit.',
          'Reposer la mécatronique, un carter-filtre et une douille neufs.',
          'Remplir, refaire le niveau, réinitialiser les adaptations.',
          'Essai routier de 30 km dont 10 km sur voie rapide, pontage fermé.',
        ],
        checkpoints: [
          ['Test de dépression des alésages', 'Chaque alésage tient la dépression (au moins 0,6 bar pendant 10 s) avant remontage.'],
          ['Passages 2–3 et 3–2', 'Sans à-coup, boîte froide puis chaude.'],
          ['Glissement du pontage', 'Au diagnostic, pontage fermé en 6e à 110 km/h : écart inférieur à 30 tr/min.'],
        ],
      },
      {
        name: 'Révision de la boîte',
        description: 'Boîte déposée : embrayages, joints de pistons et convertisseur.',
        steps: [
          "Déposer la boîte et le convertisseur ; vidanger et noter l'état de l'huile.",
          "Démonter les ensembles d'embrayages A à E ; mesurer l'épaisseur des garnitures et le jeu des paquets.",
          "Remplacer garnitures, disques acier et joints de pistons ; contrôler les bagues de support et le tambour de l'embrayage E.",
          'Remonter en réglant le jeu de chaque paquet par les disques de calage.',
          "Poser un convertisseur reconditionné et un joint à lèvre d'entrée neuf.",
          'Reposer la boîte, remplir, refaire le niveau et réinitialiser les adaptations.',
          'Essai routier de 30 km : passages en charge légère puis kick-down.',
        ],
        checkpoints: [
          ["Jeu des paquets d'embrayages", 'Mesuré au comparateur sur chaque paquet, dans la tolérance du manuel ZF.'],
          ["Test à l'air des pistons", "Chaque piston se déplace à l'air comprimé sans fuite audible."],
          ['Essai routier', 'Aucun patinage en 4–5 ni vibration en 5e et 6e, aucun code défaut.'],
        ],
      },
    ],
    measures: [
      {
        name: 'Résistance électrovanne EDS (à 20 °C)',
        unit: 'Ω',
        minimum: 4.5,
        maximum: 6.5,
        description: "À l'ohmmètre sur la douille de connecteur, mécatronique en place.",
      },
      {
        name: 'Résistance électrovanne MV1 (à 20 °C)',
        unit: 'Ω',
        minimum: 10,
        maximum: 16,
        description: "Électrovanne tout-ou-rien, à l'ohmmètre sur la douille.",
      },
      {
        name: "Température d'huile au contrôle de niveau",
        unit: '°C',
        minimum: 30,
        maximum: 50,
        description: 'Lue au diagnostic, moteur tournant, levier en P.',
      },
    ],
    curve: {
      fileName: 'caracteristique-eds-6hp26.csv',
      title: "Caractéristique d'une électrovanne EDS (pression selon le courant)",
      comment: "Relevée au banc d'électrovannes, huile à 60 °C. Une EDS hors bande se remplace avec les adaptations réinitialisées.",
      csv: csv('courant_mA;pression_min_bar;pression_max_bar', 101, 0, 10, 0, (mA) => band(edsPressure6hp(mA), 0.25, 2)),
    },
  },

  'Aisin TF-80SC': {
    doctorCodes: [
      {
        code: 'AM6-DW12',
        businessName: 'AM6 — Peugeot 407 / 508, Citroën C5',
        tvsCode: 'AM6-P1',
        engine: '2.2 HDi DW12C (170 ch)',
        gearboxCodes: ['20GG13', '20GG29'],
      },
      {
        code: 'AM6-D5244',
        businessName: 'Geartronic — Volvo XC60 / S80',
        tvsCode: 'TF80-V1',
        engine: '2.4 D5 D5244T (185 ch)',
        gearboxCodes: ['1285115', '1285130'],
      },
    ],
    outages: [
      [
        'Bloc hydraulique',
        'Huile polluée',
        22,
        160000,
        'Électrovannes encrassées par une huile jamais vidangée : passages durs 2–3.',
        ['Vidange en trois passes', 'Remplacement du bloc hydraulique'],
      ],
      [
        'Convertisseur de couple',
        'Usure',
        15,
        180000,
        'Embrayage de pontage usé : broutement entre 60 et 80 km/h et P0741 mémorisé.',
        ['Remplacement du convertisseur'],
      ],
      [
        'Électrovanne de pression',
        'Défaut électrique',
        10,
        140000,
        'Électrovanne linéaire de pression de ligne (SLT) en court-circuit : passages brutaux, P0780 mémorisé.',
        ['Remplacement du bloc hydraulique'],
      ],
      [
        'Calculateur de boîte (TCU)',
        'Défaut logiciel',
        8,
        90000,
        'Adaptations dérivées après un débranchement de la batterie : passage 2–3 dur à froid ; mise à jour et réinitialisation au diagnostic.',
        ['Vidange en trois passes'],
      ],
    ],
    procedures: [
      {
        name: 'Vidange en trois passes',
        description: "La boîte ne se vide qu'à moitié : trois vidanges successives renouvellent l'huile à plus de 85 %.",
        steps: [
          'Lire les codes défaut et noter le kilométrage de la dernière vidange.',
          "Vidanger par le bouchon du carter, boîte chaude, et peser l'huile recueillie.",
          "Remplir de la même quantité d'Aisin AW-1 par l'orifice de remplissage.",
          'Moteur tournant, passer toutes les positions du levier, rouler 5 km puis vidanger à nouveau.',
          'Recommencer une troisième fois, puis remplacer la crépine à la dernière vidange.',
          'Refaire le niveau au débordement à 40–45 °C, moteur tournant en P.',
          "Réinitialiser les adaptations au diagnostic et faire l'essai routier d'apprentissage.",
        ],
        checkpoints: [
          ["Couleur de l'huile", "Après la troisième passe, l'huile recueillie est rouge et translucide."],
          ['Niveau au débordement', 'Huile à 40–45 °C au diagnostic, moteur tournant en P.'],
          ['Passage 2–3 à froid', 'Sans à-coup à la première sortie du matin (huile sous 30 °C).'],
        ],
      },
      {
        name: 'Remplacement du bloc hydraulique',
        description: 'Bloc hydraulique complet avec électrovannes, puis apprentissage.',
        steps: [
          'Vidanger et déposer le carter inférieur et la crépine.',
          'Débrancher les électrovannes et déposer le bloc hydraulique en retenant les billes de clapet.',
          'Mesurer la résistance des électrovannes du bloc déposé pour confirmer le diagnostic.',
          'Poser le bloc hydraulique neuf au couple prescrit, crépine et joint de carter neufs.',
          'Remplir en Aisin AW-1 et refaire le niveau à 40–45 °C.',
          'Réinitialiser les adaptations puis rouler en passant chaque rapport en charge légère.',
        ],
        checkpoints: [
          ['Pression de ligne au ralenti', 'Au manomètre sur la prise de pression de ligne, levier en D, huile à 80 °C.'],
          ['Pression de ligne au calage', 'Frein serré, pied à fond 5 s au plus, levier en D.'],
          ['Codes défaut', "Aucun code après l'essai routier."],
        ],
      },
      {
        name: 'Remplacement du convertisseur',
        description: 'Boîte déposée, convertisseur reconditionné.',
        steps: [
          'Déposer la boîte, moteur soutenu.',
          'Déposer le convertisseur et remplacer le joint à lèvre de pompe.',
          'Poser le convertisseur reconditionné en contrôlant son engagement.',
          'Reposer la boîte, remplir et refaire le niveau à 40–45 °C.',
          'Réinitialiser les adaptations, essai routier entre 60 et 80 km/h en pontage.',
        ],
        checkpoints: [
          ["Cote d'engagement", 'Mesurée au réglet entre la face de la cloche et le moyeu du convertisseur.'],
          ['Broutement', 'Aucun broutement entre 60 et 80 km/h sous faible charge.'],
        ],
      },
    ],
    measures: [
      {
        name: 'Pression de ligne au ralenti (D)',
        unit: 'bar',
        minimum: 3.7,
        maximum: 4.5,
        description: 'Au manomètre sur la prise de pression de ligne, huile à 80 °C.',
      },
      { name: 'Pression de ligne au calage (D)', unit: 'bar', minimum: 11, maximum: 13.5, description: 'Frein serré, pied à fond 5 s au plus.' },
      { name: 'Régime de calage', unit: 'tr/min', minimum: 2100, maximum: 2600, description: 'Levier en D, frein serré, pied à fond 5 s au plus.' },
    ],
    curve: {
      fileName: 'pression-ligne-tf80sc.csv',
      title: 'Pression de ligne en D, du ralenti au calage',
      comment: 'Manomètre sur la prise de pression de ligne, huile à 80 °C, frein serré. Sous la bande : crépine, pompe ou électrovanne SLT.',
      csv: csv('regime_tr_min;pression_min_bar;pression_max_bar', 91, 700, 20, 0, (rpm) =>
        band(linePressureTf80(rpm), 0.4 + 0.5 * clamp01((rpm - 700) / 1700), 2),
      ),
    },
  },

  'Aisin AW55-51SN': {
    doctorCodes: [
      {
        code: 'AF33-Z19',
        businessName: 'AF33-5 — Opel Vectra C / Signum',
        tvsCode: 'AW55-O1',
        engine: '1.9 CDTI Z19DTH (150 ch)',
        gearboxCodes: ['55353107', '55353108'],
      },
      { code: 'AW55-B5244', businessName: 'Geartronic — Volvo S60 / V70', tvsCode: 'AW55-V1', engine: '2.4 B5244S (170 ch)', gearboxCodes: ['1208780'] },
    ],
    outages: [
      [
        'Bloc hydraulique',
        'Usure',
        26,
        170000,
        'Corps de valves usé (vanne de régulation et accumulateur C2) : à-coup violent 2–3 à chaud, P0730 mémorisé.',
        ['Remplacement du corps de valves'],
      ],
      [
        'Électrovanne de pression',
        'Huile polluée',
        18,
        150000,
        'Électrovanne de pression SLS encrassée : passages durs et montée en régime entre 3 et 4.',
        ["Vidange et remplacement de l'électrovanne SLS", 'Remplacement du corps de valves'],
      ],
      [
        'Capteur de régime de sortie',
        'Défaut électrique',
        9,
        140000,
        'Signal du capteur de régime de sortie intermittent : mode secours en 3e et compteur de vitesse figé.',
        ['Contrôle et remplacement du capteur de régime'],
      ],
      [
        'Embrayages multidisques',
        'Surchauffe',
        7,
        190000,
        "Embrayages brûlés après le tractage d'une caravane : patinage en 4e et 5e, huile noire à l'odeur de brûlé.",
        ['Remplacement du corps de valves'],
      ],
    ],
    procedures: [
      {
        name: 'Remplacement du corps de valves',
        description: 'Corps de valves neuf ou reconditionné, puis apprentissage complet.',
        steps: [
          'Relever les codes défaut et les adaptations au diagnostic.',
          'Vidanger, déposer le carter inférieur et la crépine.',
          'Débrancher les électrovannes et déposer le corps de valves.',
          'Poser le corps de valves neuf au couple prescrit, crépine et joint de carter neufs.',
          'Remplir en Aisin AW-1, refaire le niveau au débordement à 40 °C.',
          'Réinitialiser les adaptations au diagnostic.',
          'Essai routier : dix passages 2–3 à mi-charge, boîte chaude.',
        ],
        checkpoints: [
          ['Pression de ligne au ralenti', 'Au manomètre, levier en D, huile à 80 °C.'],
          ['Passage 2–3 à chaud', 'Sans à-coup ni montée en régime après dix passages.'],
          ['Codes défaut', 'Aucun code présent ni mémorisé.'],
        ],
      },
      {
        name: "Vidange et remplacement de l'électrovanne SLS",
        description: 'Électrovanne accessible sous le carter, sans déposer le corps de valves.',
        steps: [
          'Vidanger et déposer le carter inférieur.',
          "Mesurer la résistance de l'électrovanne SLS en place.",
          "Remplacer l'électrovanne SLS et son joint torique.",
          'Nettoyer les aimants, poser une crépine et un joint de carter neufs.',
          "Remplir, refaire le niveau, réinitialiser les adaptations et faire l'essai routier.",
        ],
        checkpoints: [
          ["Résistance de l'électrovanne neuve", "Mesurée à l'ohmmètre avant de reposer le carter."],
          ['Passage 3–4', 'Sans montée en régime, boîte chaude.'],
        ],
      },
      {
        name: 'Contrôle et remplacement du capteur de régime',
        description: 'Capteur et faisceau contrôlés avant tout remplacement.',
        steps: [
          'Lire les codes défaut et la valeur du régime de sortie au diagnostic en roulant.',
          'Contrôler le connecteur du capteur : broches oxydées, huile, verrou.',
          "Mesurer la résistance du capteur et la continuité du faisceau jusqu'au calculateur.",
          'Remplacer le capteur et son joint torique.',
          'Effacer les codes et rouler 10 km en passant tous les rapports.',
        ],
        checkpoints: [
          ['Signal en roulant', 'Au diagnostic, le régime de sortie suit la vitesse sans décrochage.'],
          ['Compteur de vitesse', 'Le compteur indique la vitesse du GPS à 3 km/h près.'],
        ],
      },
    ],
    measures: [
      {
        name: "Résistance du capteur de température d'huile à 20 °C",
        unit: 'kΩ',
        minimum: 2.55,
        maximum: 2.82,
        description: "À l'ohmmètre sur le connecteur de boîte, boîte froide.",
      },
      { name: 'Résistance électrovanne de passage S1', unit: 'Ω', minimum: 11, maximum: 15, description: "À l'ohmmètre, à 20 °C." },
      {
        name: 'Pression de ligne au ralenti (D)',
        unit: 'bar',
        minimum: 3.4,
        maximum: 4.2,
        description: 'Au manomètre sur la prise de pression de ligne, huile à 80 °C.',
      },
    ],
    curve: {
      fileName: 'capteur-temperature-aw55.csv',
      title: "Capteur de température d'huile : résistance selon la température",
      comment: 'Courbe du capteur neuf (CTN). Mesurer boîte froide, puis comparer à la température lue au diagnostic.',
      csv: csv('temperature_c;resistance_min_kohm;resistance_max_kohm', 151, -20, 1, 0, (c) => [fr(0.95 * ntcAw55(c), 3), fr(1.05 * ntcAw55(c), 3)]),
    },
  },

  'VW DQ200 0AM': {
    doctorCodes: [
      {
        code: 'DQ200-CAX',
        businessName: 'DSG7 — Golf VI / Octavia II 1.4 TSI',
        tvsCode: '0AM-T1',
        engine: '1.4 TSI CAXA (122 ch)',
        gearboxCodes: ['MPT', 'NLS'],
      },
      { code: 'DQ200-CAY', businessName: 'DSG7 — Golf VI / Polo V 1.6 TDI', tvsCode: '0AM-D1', engine: '1.6 TDI CAYC (105 ch)', gearboxCodes: ['PJZ', 'NCT'] },
    ],
    outages: [
      [
        'Double embrayage (K1/K2)',
        'Usure',
        34,
        98000,
        'Embrayage sec usé : à-coups au démarrage et patinage en côte.',
        ['Remplacement du double embrayage sec'],
      ],
      [
        'Mécatronique',
        'Fuite',
        27,
        120000,
        "Fissure de l'accumulateur de pression : perte de pression et voyant allumé.",
        ["Réparation de l'accumulateur de pression", 'Échange de la mécatronique'],
      ],
      [
        'Volant bimasse',
        'Usure',
        12,
        140000,
        'Volant bimasse en fin de vie : claquements au ralenti, vibrations au démarrage et usure rapide du double embrayage.',
        ['Remplacement du double embrayage sec'],
      ],
      [
        'Mécatronique',
        'Défaut électrique',
        9,
        110000,
        'Capteur de position de fourchette de la carte électronique défaillant : rapports pairs bloqués, boîte en mode secours.',
        ['Échange de la mécatronique'],
      ],
    ],
    procedures: [
      {
        name: 'Remplacement du double embrayage sec',
        description: 'Kit LuK avec butées, réglage des cotes et apprentissage des points de léchage.',
        steps: [
          'Lire les codes défaut et relever les points de léchage K1 et K2 au diagnostic.',
          "Déposer la boîte ; déposer le double embrayage à l'outil d'extraction.",
          "Contrôler le volant bimasse : jeu angulaire, jeu axial, traces de surchauffe ; le remplacer s'il est hors tolérance.",
          'Mesurer et régler les cotes des butées K1 et K2 avec les cales du kit.',
          "Poser le double embrayage neuf à la presse d'outillage, sans frapper.",
          'Reposer la boîte et serrer au couple prescrit.',
          "Réaliser au diagnostic l'adaptation de la boîte (points de léchage et positions des fourchettes).",
          'Essai routier : démarrages en 1re et en marche arrière, en côte, puis 20 km en circulation.',
        ],
        checkpoints: [
          ['Cotes des butées', 'Mesurées au comparateur, dans la tolérance de la notice du kit.'],
          ['Points de léchage après adaptation', 'Lus au diagnostic pour K1 et K2, dans les bornes des mesures de référence.'],
          ['Démarrage en côte', 'Sans broutement ni à-coup, en 1re comme en marche arrière.'],
        ],
      },
      {
        name: "Réparation de l'accumulateur de pression",
        description: 'Accumulateur neuf sur la mécatronique en place, boîte sur le véhicule.',
        steps: [
          'Lire les codes défaut et la pression de la mécatronique au diagnostic.',
          'Déposer la batterie et son support pour accéder à la mécatronique.',
          "Déposer l'accumulateur fissuré et nettoyer le corps de la mécatronique.",
          "Poser l'accumulateur neuf avec ses joints, au couple prescrit.",
          "Compléter le niveau d'huile hydraulique de la mécatronique (G 004 000).",
          "Effacer les codes, réaliser l'adaptation de la boîte puis l'essai routier.",
        ],
        checkpoints: [
          ["Pression de l'accumulateur", 'Contact mis, pompe arrêtée : dans les bornes de la mesure de référence.'],
          ['Étanchéité', "Après l'essai, aucune trace d'huile sous la mécatronique."],
        ],
      },
      {
        name: 'Échange de la mécatronique',
        description: 'Mécatronique neuve ou reconditionnée, codée au véhicule.',
        steps: [
          'Relever les codes défaut et le numéro de logiciel de la mécatronique.',
          'Mettre les fourchettes en position de dépose au diagnostic.',
          'Déposer la batterie, son support et la mécatronique.',
          'Poser la mécatronique, au couple prescrit, en engageant les fourchettes.',
          "Coder la mécatronique et réaliser l'adaptation de la boîte au diagnostic.",
          'Essai routier de 20 km : tous les rapports, démarrages en côte.',
        ],
        checkpoints: [
          ['Codes défaut', "Aucun code présent ni mémorisé après l'essai."],
          ['Rapports pairs et impairs', 'Les sept rapports passent, en montée comme en rétrogradage.'],
        ],
      },
    ],
    measures: [
      { name: "Pression de l'accumulateur (contact mis, pompe arrêtée)", unit: 'bar', minimum: 40, maximum: 60, description: 'Lue au diagnostic.' },
      {
        name: 'Point de léchage embrayage K1',
        unit: 'mm',
        minimum: 4,
        maximum: 5,
        description: "Course de l'actionneur K1 lue au diagnostic après adaptation.",
      },
      {
        name: 'Point de léchage embrayage K2',
        unit: 'mm',
        minimum: 3.8,
        maximum: 4.8,
        description: "Course de l'actionneur K2 lue au diagnostic après adaptation.",
      },
    ],
    curve: {
      fileName: 'embrayage-k1-dq200.csv',
      title: "Caractéristique de l'embrayage K1 (couple transmis selon la course)",
      comment: "Bande d'un embrayage neuf après adaptation. Courbe décalée vers la droite : embrayage usé ou butée mal calée.",
      csv: csv('course_mm;couple_min_nm;couple_max_nm', 101, 0, 0.1, 1, (mm) => [fr(clutchTorqueDq200(mm, 5), 1), fr(clutchTorqueDq200(mm, 4), 1)]),
    },
  },

  'VW DQ250 02E': {
    doctorCodes: [
      { code: 'DQ250-BKD', businessName: 'DSG6 — Golf V / Touran 2.0 TDI', tvsCode: '02E-D1', engine: '2.0 TDI BKD (140 ch)', gearboxCodes: ['HXT', 'JPM'] },
      {
        code: 'DQ250-CFG',
        businessName: 'DSG6 — Passat B7 / Tiguan 2.0 TDI',
        tvsCode: '02E-D2',
        engine: '2.0 TDI CFGB (170 ch)',
        gearboxCodes: ['LQV', 'NLE'],
      },
    ],
    outages: [
      [
        'Mécatronique',
        'Défaut électrique',
        20,
        150000,
        'Capteur de pression de la mécatronique hors tolérance : à-coups au démarrage, P189C mémorisé.',
        ['Échange de la mécatronique', 'Vidange DSG avec filtre'],
      ],
      [
        'Électrovanne de pression',
        'Huile polluée',
        16,
        130000,
        "Électrovannes de pression d'embrayage encrassées : passage 1–2 brutal à froid, marche arrière lente à s'engager.",
        ['Vidange DSG avec filtre', 'Échange de la mécatronique'],
      ],
      [
        'Double embrayage (K1/K2)',
        'Usure',
        14,
        180000,
        "Disques de l'embrayage K1 usés, vidanges de 60 000 km non faites : broutement au démarrage en côte.",
        ['Remplacement du double embrayage humide'],
      ],
      [
        'Pompe à huile',
        'Usure',
        5,
        200000,
        'Pompe usée : pression principale faible à chaud (P0868), rapports qui sautent.',
        ['Remplacement du double embrayage humide'],
      ],
    ],
    procedures: [
      {
        name: 'Vidange DSG avec filtre',
        description: 'Tous les 60 000 km : huile et filtre, niveau à 35–45 °C.',
        steps: [
          'Lire les codes défaut au diagnostic.',
          'Déposer le filtre à cartouche sur le dessus de la boîte.',
          'Vidanger par le bouchon, puis dévisser le tube de trop-plein.',
          "Remplir 5,2 l d'huile DSG G 052 182 par l'orifice du filtre avec l'outil de remplissage.",
          'Poser le filtre neuf et son joint.',
          'Moteur tournant, passer toutes les positions du levier puis faire le niveau au trop-plein à 35–45 °C.',
          "Réaliser l'adaptation de la boîte au diagnostic et l'essai routier.",
        ],
        checkpoints: [
          ['Niveau au trop-plein', "Huile à 35–45 °C au diagnostic, moteur tournant en P : l'huile s'écoule en filet fin."],
          ['Passage 1–2 à froid', 'Sans à-coup à la première sortie du matin.'],
        ],
      },
      {
        name: 'Échange de la mécatronique',
        description: 'Mécatronique neuve ou reconditionnée, codée au véhicule.',
        steps: [
          'Relever les codes défaut et le numéro de logiciel.',
          'Vidanger et déposer le carter de la mécatronique.',
          'Débrancher le connecteur et déposer la mécatronique.',
          'Poser la mécatronique au couple prescrit, joint de carter neuf.',
          'Remplir, filtre neuf, niveau au trop-plein à 35–45 °C.',
          "Coder la mécatronique, réaliser l'adaptation de la boîte puis l'essai routier.",
        ],
        checkpoints: [
          ['Codes défaut', "Aucun code présent ni mémorisé après l'essai."],
          ['Démarrages', 'Sans à-coup en 1re et en marche arrière, boîte froide puis chaude.'],
        ],
      },
      {
        name: 'Remplacement du double embrayage humide',
        description: 'Boîte déposée : double embrayage, pompe contrôlée.',
        steps: [
          'Déposer la boîte et vidanger.',
          "Déposer le couvercle d'embrayage puis le double embrayage.",
          "Contrôler l'entraînement et le débit de la pompe ; la remplacer si elle est marquée.",
          'Poser le double embrayage neuf avec ses circlips et joints neufs.',
          'Reposer la boîte, remplir, filtre neuf, niveau au trop-plein à 35–45 °C.',
          "Réaliser l'adaptation de la boîte et un essai routier avec démarrages en côte.",
        ],
        checkpoints: [
          ['Jeu axial du double embrayage', 'Mesuré au comparateur, dans la tolérance constructeur.'],
          ['Pression principale à chaud', 'Lue au diagnostic, huile à 80 °C, sans code P0868.'],
          ['Démarrage en côte', 'Sans broutement.'],
        ],
      },
    ],
    measures: [
      {
        name: "Température d'huile au contrôle de niveau",
        unit: '°C',
        minimum: 35,
        maximum: 45,
        description: 'Lue au diagnostic, moteur tournant, levier en P.',
      },
      {
        name: 'Résistance électrovanne de pression K1 (N215)',
        unit: 'Ω',
        minimum: 4.5,
        maximum: 6.5,
        description: "À l'ohmmètre sur le connecteur de la mécatronique, à 20 °C.",
      },
      {
        name: 'Résistance électrovanne de pression K2 (N216)',
        unit: 'Ω',
        minimum: 4.5,
        maximum: 6.5,
        description: "À l'ohmmètre sur le connecteur de la mécatronique, à 20 °C.",
      },
    ],
    curve: {
      fileName: 'pression-k1-demarrage-dq250.csv',
      title: "Pression de l'embrayage K1 au démarrage",
      comment: 'Démarrage à mi-charge sur le plat, huile à 80 °C. Palier de remplissage plus long : électrovanne encrassée ou fuite au piston.',
      csv: csv('temps_s;pression_min_bar;pression_max_bar', 81, 0, 0.05, 2, (t) => band(k1PressureDq250(t), 0.3 + 0.03 * k1PressureDq250(t), 2)),
    },
  },

  'Jatco JF011E': {
    doctorCodes: [
      {
        code: 'RE0F10A-MR20',
        businessName: 'Xtronic CVT — Nissan Qashqai J10 / X-Trail T31',
        tvsCode: 'JF011E-N1',
        engine: '2.0 MR20DE (141 ch)',
        gearboxCodes: ['31020-1XF0A', '31020-1XF6C'],
      },
      {
        code: 'F1CJA-4B12',
        businessName: 'INVECS-III — Mitsubishi Outlander, Peugeot 4007',
        tvsCode: 'JF011E-M1',
        engine: '2.4 MIVEC 4B12 (170 ch)',
        gearboxCodes: ['F1CJA'],
      },
    ],
    outages: [
      ['Courroie de variateur', 'Usure', 25, 150000, "Courroie et poulies marquées : sifflement et patinage à l'accélération.", ['Remplacement du variateur']],
      [
        'Roulement de poulie',
        'Usure',
        18,
        140000,
        "Roulement de poulie primaire bruyant : ronronnement qui croît avec la vitesse, limaille sur l'aimant du carter.",
        ['Remplacement du variateur'],
      ],
      [
        'Électrovanne de pression',
        'Huile polluée',
        13,
        120000,
        'Électrovanne de pression de ligne encrassée, huile NS-2 jamais vidangée : patinage au démarrage et à-coup à la reprise.',
        ['Vidange CVT avec filtres'],
      ],
      [
        'Capteur de pression',
        'Défaut électrique',
        11,
        110000,
        'Capteur de pression secondaire défaillant : P0841 mémorisé, mode secours à régime limité.',
        ['Vidange CVT avec filtres'],
      ],
      [
        'Échangeur thermique',
        'Surchauffe',
        9,
        90000,
        'Échangeur colmaté : mode protection en côte et en été (régime limité), huile dégradée.',
        ['Vidange CVT avec filtres'],
      ],
    ],
    procedures: [
      {
        name: 'Vidange CVT avec filtres',
        description: 'Huile NS-2, filtre de carter et filtre externe, niveau à 35–45 °C, compteur de dégradation remis à zéro.',
        steps: [
          "Lire les codes défaut et le compteur de dégradation de l'huile au diagnostic (Consult).",
          'Vidanger, déposer le carter et nettoyer les deux aimants.',
          "Remplacer la crépine du carter et le filtre externe de l'échangeur.",
          "Contrôler l'échangeur thermique : circuit colmaté, durites gonflées.",
          'Reposer le carter avec un joint neuf, remplir en Nissan NS-2.',
          'Moteur tournant, passer toutes les positions puis faire le niveau à la jauge à 35–45 °C.',
          "Remettre à zéro le compteur de dégradation de l'huile au diagnostic.",
          'Essai routier de 15 km avec une montée en côte.',
        ],
        checkpoints: [
          ['Aimants du carter', 'Limaille fine seulement ; des éclats métalliques orientent vers le remplacement du variateur.'],
          ['Niveau à la jauge', 'Repère HOT, huile à 35–45 °C lue au diagnostic.'],
          ["Température en fin d'essai", 'Sous 90 °C après la montée en côte.'],
        ],
      },
      {
        name: 'Remplacement du variateur',
        description: 'Boîte reconditionnée (courroie, poulies et roulements) ou échange standard, puis apprentissage.',
        steps: [
          'Relever les codes défaut et le numéro de la boîte.',
          'Déposer la boîte, moteur soutenu.',
          "Rincer l'échangeur thermique et remplacer le filtre externe.",
          'Poser la boîte reconditionnée avec son convertisseur, au couple prescrit.',
          'Remplir en NS-2 et faire le niveau à 35–45 °C.',
          "Écrire les données d'étalonnage de la boîte dans le calculateur au diagnostic.",
          'Essai routier de 20 km : accélérations franches, montée en côte.',
        ],
        checkpoints: [
          ["Données d'étalonnage écrites", "Le diagnostic confirme l'écriture des données de la boîte posée."],
          ["Bruit à l'essai", "Aucun sifflement ni ronronnement jusqu'à 130 km/h."],
          ['Régime à 100 km/h', 'À quart de charge, dans les bornes de la mesure de référence.'],
        ],
      },
    ],
    measures: [
      {
        name: "Rapport de variation à l'arrêt",
        unit: '',
        minimum: 2.3,
        maximum: 2.37,
        description: 'Lu au diagnostic, levier en D, frein serré (rapport bas : 2,349).',
      },
      { name: 'Régime moteur à 100 km/h, quart de charge', unit: 'tr/min', minimum: 1700, maximum: 2000, description: 'Sur le plat, vitesse stabilisée.' },
      {
        name: "Température d'huile en fin d'essai",
        unit: '°C',
        minimum: 60,
        maximum: 90,
        description: 'Lue au diagnostic après 15 km dont une montée en côte.',
      },
    ],
    curve: {
      fileName: 'regime-vitesse-jf011e.csv',
      title: 'Régime moteur selon la vitesse, à quart de charge',
      comment: 'Relevé sur Qashqai 2.0 avec boîte saine. Régime au-dessus de la bande : patinage de la courroie.',
      csv: csv('vitesse_kmh;regime_bas_tr_mn;regime_haut_tr_mn', 161, 0, 1, 0, (kmh) => band(rpmJf011(kmh), 120, 0)),
    },
  },

  'Getrag 6DCT450': {
    doctorCodes: [
      {
        code: '6DCT450-UFDA',
        businessName: 'Powershift — Ford Focus / C-Max / Kuga',
        tvsCode: 'MPS6-F1',
        engine: '2.0 TDCi UFDA (136 ch)',
        gearboxCodes: ['AV6R-7000-BE', '7M5R-7000-AH'],
      },
      {
        code: '6DCT450-D4204',
        businessName: 'Powershift — Volvo S40 / V50 / C30',
        tvsCode: 'MPS6-V1',
        engine: '2.0 D D4204T (136 ch)',
        gearboxCodes: ['36001029'],
      },
    ],
    outages: [
      [
        'Calculateur de boîte (TCU)',
        'Défaut électrique',
        16,
        145000,
        'Calculateur de boîte défaillant (soudures) : passages impossibles par intermittence, P0700 mémorisé.',
        ['Remplacement du calculateur de boîte'],
      ],
      [
        'Double embrayage (K1/K2)',
        'Usure',
        14,
        165000,
        'Disques du double embrayage humide glacés : broutement au démarrage et en marche arrière.',
        ['Remplacement du double embrayage humide', 'Vidange de la boîte Powershift'],
      ],
      [
        'Électrovanne de pression',
        'Huile polluée',
        11,
        150000,
        "Électrovannes de pression d'embrayage encrassées, huile jamais vidangée : à-coups 1–2 et 2–3 à froid.",
        ['Vidange de la boîte Powershift'],
      ],
      [
        'Joint à lèvre de sortie',
        'Fuite',
        8,
        120000,
        'Suintement aux joints à lèvre de sortie de pont : niveau bas, patinage à chaud.',
        ['Vidange de la boîte Powershift'],
      ],
    ],
    procedures: [
      {
        name: 'Vidange de la boîte Powershift',
        description: 'Huile et filtre, niveau par le bouchon de contrôle.',
        steps: [
          'Lire les codes défaut au diagnostic.',
          'Vidanger boîte chaude par le bouchon de vidange.',
          'Remplacer le filtre à huile externe.',
          "Contrôler les joints à lèvre de sortie et les remplacer s'ils suintent.",
          "Remplir en huile Powershift jusqu'au débordement du bouchon de contrôle, véhicule à plat.",
          'Moteur tournant, passer toutes les positions du levier puis refaire le niveau.',
          "Réaliser au diagnostic l'apprentissage des embrayages et l'essai routier.",
        ],
        checkpoints: [
          ['Niveau au bouchon de contrôle', 'Véhicule à plat, huile à 40 °C au diagnostic.'],
          ['Joints à lèvre de sortie', "Secs après l'essai routier."],
          ['Passages à froid', 'Passages 1–2 et 2–3 sans à-coup, huile sous 30 °C.'],
        ],
      },
      {
        name: 'Remplacement du calculateur de boîte',
        description: 'Calculateur neuf, programmé et appris.',
        steps: [
          'Relever les codes défaut et la référence du calculateur.',
          'Débrancher la batterie et déposer le calculateur de boîte.',
          "Contrôler le connecteur et le faisceau : broches, joint d'étanchéité.",
          'Poser le calculateur neuf et rebrancher.',
          "Programmer le calculateur au diagnostic puis faire l'apprentissage des embrayages et des fourchettes.",
          'Essai routier de 20 km.',
        ],
        checkpoints: [
          ['Apprentissage terminé', "Le diagnostic confirme l'apprentissage des embrayages et des fourchettes."],
          ['Codes défaut', "Aucun code après l'essai routier."],
        ],
      },
      {
        name: 'Remplacement du double embrayage humide',
        description: 'Boîte déposée, double embrayage neuf et huile neuve.',
        steps: [
          'Déposer la boîte et vidanger.',
          "Déposer le double embrayage et contrôler l'état des arbres primaires.",
          'Poser le double embrayage neuf avec ses joints.',
          'Reposer la boîte, remplacer le filtre, remplir et faire le niveau.',
          "Réaliser l'apprentissage des embrayages au diagnostic.",
          'Essai routier avec démarrages en côte et en marche arrière.',
        ],
        checkpoints: [
          ['Broutement', 'Aucun broutement au démarrage, en 1re comme en marche arrière.'],
          ['Pressions C1 et C2', 'Passage 1–2 relevé au diagnostic, comparé à la courbe de référence.'],
        ],
      },
    ],
    measures: [
      { name: "Température d'huile en fin d'essai", unit: '°C', minimum: 70, maximum: 95, description: 'Lue au diagnostic après 20 km.' },
      {
        name: 'Résistance électrovanne de pression C1',
        unit: 'Ω',
        minimum: 4.5,
        maximum: 6.5,
        description: "À l'ohmmètre sur le connecteur de boîte, à 20 °C.",
      },
      {
        name: 'Résistance électrovanne de pression C2',
        unit: 'Ω',
        minimum: 4.5,
        maximum: 6.5,
        description: "À l'ohmmètre sur le connecteur de boîte, à 20 °C.",
      },
    ],
    curve: {
      fileName: 'passage-1-2-6dct450.csv',
      title: 'Pressions des embrayages C1 et C2 au passage 1→2',
      comment: 'Passage à mi-charge, huile à 80 °C. Recouvrement trop long : électrovanne encrassée ; trop court : à-coup.',
      csv: csv('temps_s;pression_c1_bar;pression_c2_bar', 101, 0, 0.02, 2, (t) => [fr(c1Pressure6dct(t), 2), fr(c2Pressure6dct(t), 2)]),
    },
  },

  'PSA ETG6': {
    doctorCodes: [
      {
        code: 'MCP-DV6C',
        businessName: 'BMP6 — Citroën C4 Picasso / C4',
        tvsCode: 'MCP-C1',
        engine: '1.6 e-HDi DV6C (112 ch)',
        gearboxCodes: ['20DS68', '20DS92'],
      },
      { code: 'MCP-9HZ', businessName: 'ETG6 — Peugeot 308 / 3008', tvsCode: 'MCP-P1', engine: '1.6 HDi DV6TED4 (110 ch)', gearboxCodes: ['20DS42'] },
    ],
    outages: [
      [
        'Embrayage',
        'Usure',
        30,
        90000,
        "Disque d'embrayage usé, point de léchage hors plage : patinage en côte et démarrages en saccades.",
        ["Remplacement de l'embrayage et apprentissages"],
      ],
      [
        "Moteur d'embrayage",
        'Grippage',
        18,
        110000,
        "Tige du moteur d'embrayage grippée : démarrages brutaux puis embrayage qui ne se libère plus, message « Défaut boîte de vitesses ».",
        ["Remplacement du moteur d'embrayage"],
      ],
      [
        'Robot de sélection des rapports',
        'Défaut électrique',
        12,
        120000,
        'Capteur de position du robot de sélection défaillant : rapports impossibles à engager, « - » au combiné.',
        ["Remplacement du moteur d'embrayage"],
      ],
      [
        'Calculateur de boîte (TCU)',
        'Défaut logiciel',
        8,
        70000,
        "Logiciel d'origine : démarrages en saccades, corrigés par la mise à jour et l'apprentissage du point de léchage.",
        ['Mise à jour du calculateur et apprentissages'],
      ],
    ],
    procedures: [
      {
        name: "Remplacement de l'embrayage et apprentissages",
        description: 'Kit embrayage avec butée, puis apprentissages au diagnostic.',
        steps: [
          "Lire les codes défaut et la valeur d'usure de l'embrayage au diagnostic (DiagBox).",
          'Déposer la boîte et contrôler le volant moteur.',
          "Remplacer le mécanisme, le disque et la butée d'embrayage.",
          'Reposer la boîte et serrer au couple prescrit.',
          "Réaliser au diagnostic l'initialisation de l'usure puis l'apprentissage du point de léchage et des positions du robot.",
          'Essai routier : démarrages en côte, manœuvres en marche arrière.',
        ],
        checkpoints: [
          ["Usure de l'embrayage", 'Remise à zéro confirmée au diagnostic.'],
          ['Point de léchage appris', 'Dans les bornes de la mesure de référence.'],
          ['Démarrage en côte', 'Sans saccade ni recul.'],
        ],
      },
      {
        name: "Remplacement du moteur d'embrayage",
        description: "Moteur d'embrayage ou robot de sélection neuf, appris au diagnostic.",
        steps: [
          'Lire les codes défaut et les positions du robot au diagnostic.',
          'Déposer la batterie et son bac pour accéder au robot.',
          "Déposer le moteur d'embrayage (ou le robot de sélection) et nettoyer la tige.",
          'Poser la pièce neuve, tige graissée, au couple prescrit.',
          "Réaliser l'apprentissage des positions du robot puis du point de léchage.",
          'Essai routier de 10 km avec démarrages en côte.',
        ],
        checkpoints: [
          ["Tension d'alimentation", 'Moteur tournant, dans les bornes de la mesure de référence.'],
          ['Engagement des rapports', "Les six rapports et la marche arrière s'engagent sans « - » au combiné."],
        ],
      },
      {
        name: 'Mise à jour du calculateur et apprentissages',
        description: 'Téléchargement du dernier logiciel, puis apprentissages.',
        steps: [
          'Brancher un maintien de charge de batterie.',
          'Lire la version du logiciel au diagnostic et télécharger la dernière version.',
          "Réaliser l'apprentissage des positions du robot puis du point de léchage.",
          'Essai routier : démarrages en 1re et en marche arrière, en côte.',
        ],
        checkpoints: [
          ['Version du logiciel', 'La dernière version est confirmée au diagnostic.'],
          ['Démarrages', 'Sans saccade à froid comme à chaud.'],
        ],
      },
    ],
    measures: [
      { name: "Point de léchage de l'embrayage", unit: 'mm', minimum: 4.5, maximum: 6.5, description: 'Lu au diagnostic après apprentissage.' },
      {
        name: "Tension d'alimentation du calculateur (moteur tournant)",
        unit: 'V',
        minimum: 13.5,
        maximum: 14.8,
        description: 'Au multimètre sur le connecteur du calculateur de boîte.',
      },
      { name: "Usure de l'embrayage", unit: '%', minimum: 0, maximum: 80, description: 'Valeur lue au diagnostic ; au-delà, prévoir le remplacement.' },
    ],
    curve: {
      fileName: 'course-embrayage-etg6.csv',
      title: "Course de l'embrayage au passage 2→3",
      comment: "Relevé au diagnostic, passage à mi-charge. Réembrayage trop lent : moteur d'embrayage qui grippe.",
      csv: csv('temps_s;course_min_mm;course_max_mm', 151, 0, 0.01, 2, (t) => band(clutchTravelEtg6(t), 0.5, 2)),
    },
  },
};
