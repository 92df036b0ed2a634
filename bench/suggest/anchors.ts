// Optuna figures from ../shared/reference/hpo-anchors.md (Optuna 3.1) and hpo-anchors-optuna5.md
// (Optuna 5.0), batch 1 and batch 5, 20 seeds (gp-ei and Optuna 5.0's GPSampler 10): median regret
// at 25/50/100 trials and ms per suggestion (in-process ask+tell). Each of our algorithms is compared
// with the anchor sampler of its family. Optuna 5.0 has no gp-ei, random, sobol or grid rows.

export interface AnchorFigures {
  readonly sampler: string;
  readonly regret: readonly [number, number, number];
  readonly msPerSuggestion: number;
}

export type Release = 'optuna-3.1' | 'optuna-5.0';
export const RELEASES: readonly Release[] = ['optuna-3.1', 'optuna-5.0'];

type Rows = Record<string, Record<string, readonly [number, number, number, number]>>;

const ANCHORS: Record<Release, Record<1 | 5, Rows>> = {
  'optuna-3.1': {
    '1': {
      branin: {
        random: [1.46, 0.747, 0.38, 0.16],
        tpe: [0.582, 0.172, 0.0121, 7.55],
        'multivariate-tpe': [0.458, 0.16, 0.0725, 6.88],
        cmaes: [2.41, 0.754, 0.0135, 0.6],
        sobol: [2.07, 0.665, 0.366, 0.39],
        grid: [1.74, 1.55, 0.731, 5.97],
        'gp-ei': [0.0235, 0.00029, 0.00016, 106.52],
      },
      hartmann6: {
        random: [2.17, 1.55, 1.2, 0.29],
        tpe: [1.39, 0.562, 0.254, 21.75],
        'multivariate-tpe': [0.845, 0.323, 0.188, 17.14],
        cmaes: [1.54, 0.728, 0.275, 0.78],
        sobol: [1.67, 1.49, 1.29, 0.65],
        grid: [2.49, 2.1, 1.59, 11.42],
        'gp-ei': [1.88, 0.0597, 0.0046, 103.63],
      },
      rosenbrock4: {
        random: [5109, 2796, 859, 0.28],
        tpe: [1209, 322, 61.2, 15.49],
        'multivariate-tpe': [655, 232, 53.8, 11.53],
        cmaes: [355, 123, 44.7, 0.72],
        sobol: [4063, 1599, 979, 0.52],
        grid: [6187, 5160, 3682, 10.53],
        'gp-ei': [782, 352, 15.2, 116.32],
      },
      ackley5: {
        random: [17.5, 15.9, 15.5, 0.26],
        tpe: [14.3, 10.2, 6.79, 19.05],
        'multivariate-tpe': [12.5, 9.17, 6.34, 10.35],
        cmaes: [13, 9.55, 6.63, 0.76],
        sobol: [16.7, 15.6, 13.7, 0.59],
        grid: [16, 16, 12.6, 8.34],
        'gp-ei': [10.5, 3.45, 3.25, 108.4],
      },
      mixed4: {
        random: [0.447, 0.279, 0.18, 0.33],
        tpe: [0.243, 0.0479, 0.000041, 10.51],
        'multivariate-tpe': [0.175, 0.0018, 0.000028, 6.24],
        sobol: [0.328, 0.276, 0.232, 0.67],
        grid: [0.444, 0.261, 0.151, 7.38],
        'gp-ei': [0.206, 0.0000076, 8.5e-7, 135.73],
      },
      logquad2: {
        random: [0.105, 0.0624, 0.0567, 0.09],
        tpe: [0.0224, 0.0073, 0.001, 7.19],
        'multivariate-tpe': [0.0161, 0.0083, 0.0028, 5.99],
        cmaes: [0.0336, 0.0072, 0.00013, 0.62],
        sobol: [0.115, 0.0797, 0.0281, 0.41],
        grid: [5.03, 4.8, 4.8, 6.03],
        'gp-ei': [0.0017, 0.0017, 0.0017, 106.95],
      },
    },
    '5': {
      branin: {
        random: [1.46, 0.747, 0.38, 0.09],
        tpe: [0.975, 0.191, 0.0282, 6.74],
        'multivariate-tpe': [1.27, 0.175, 0.121, 6.89],
        cmaes: [3.01, 0.972, 0.0966, 0.65],
        sobol: [2.32, 0.777, 0.28, 0.36],
        grid: [1.74, 1.55, 0.731, 6.63],
        'gp-ei': [0.0591, 0.00045, 0.0003, 168.44],
      },
      hartmann6: {
        random: [2.17, 1.55, 1.2, 0.21],
        tpe: [1.44, 0.522, 0.16, 16.23],
        'multivariate-tpe': [1.2, 0.458, 0.231, 16.76],
        cmaes: [1.71, 0.78, 0.251, 0.93],
        sobol: [1.8, 1.49, 1.29, 0.67],
        grid: [2.49, 2.1, 1.59, 12.03],
        'gp-ei': [2.11, 0.584, 0.0182, 145.61],
      },
      rosenbrock4: {
        random: [5109, 2796, 859, 0.27],
        tpe: [1439, 203, 28.9, 15.41],
        'multivariate-tpe': [804, 198, 45.3, 8.98],
        cmaes: [1155, 334, 54, 0.89],
        sobol: [4648, 2523, 979, 0.53],
        grid: [6187, 5160, 3682, 10.23],
        'gp-ei': [4030, 838, 27.5, 138.84],
      },
      ackley5: {
        random: [17.5, 15.9, 15.5, 0.32],
        tpe: [13.2, 10.2, 6.49, 17.35],
        'multivariate-tpe': [12.5, 8.38, 6.29, 10.65],
        cmaes: [12.9, 10.3, 6.81, 0.8],
        sobol: [16, 15.5, 14.2, 0.41],
        grid: [16, 16, 12.6, 8.92],
        'gp-ei': [14.3, 7.68, 3.69, 133.8],
      },
      mixed4: {
        random: [0.447, 0.279, 0.18, 0.33],
        tpe: [0.229, 0.0318, 0.000035, 9.82],
        'multivariate-tpe': [0.26, 0.0035, 0.00004, 6.98],
        sobol: [0.323, 0.261, 0.132, 0.61],
        grid: [0.444, 0.261, 0.151, 8.25],
        'gp-ei': [0.312, 0.0012, 0.000018, 169.9],
      },
      logquad2: {
        random: [0.105, 0.0624, 0.0567, 0.15],
        tpe: [0.0348, 0.0025, 0.0011, 7.65],
        'multivariate-tpe': [0.0488, 0.0127, 0.0019, 5.76],
        cmaes: [0.0408, 0.0058, 0.00046, 0.71],
        sobol: [0.112, 0.0687, 0.0281, 0.39],
        grid: [5.03, 4.8, 4.8, 6.63],
        'gp-ei': [0.00035, 0.00032, 0.00027, 121.69],
      },
    },
  },
  'optuna-5.0': {
    '1': {
      branin: {
        tpe: [0.374, 0.109, 0.0188, 1.35],
        'multivariate-tpe': [0.374, 0.109, 0.0188, 1.26],
        cmaes: [2.41, 0.754, 0.0135, 0.45],
      },
      hartmann6: {
        tpe: [0.919, 0.33, 0.0943, 2.19],
        'multivariate-tpe': [0.919, 0.33, 0.0943, 1.97],
        cmaes: [1.54, 0.728, 0.275, 0.73],
      },
      rosenbrock4: {
        tpe: [620, 175, 24.1, 2.73],
        'multivariate-tpe': [620, 175, 24.1, 1.76],
        cmaes: [355, 123, 44.7, 0.75],
      },
      ackley5: {
        tpe: [12.5, 8.83, 5.33, 2.06],
        'multivariate-tpe': [12.5, 8.83, 5.33, 2.05],
        cmaes: [13, 9.55, 6.63, 0.56],
      },
      mixed4: { tpe: [0.223, 0.0056, 0.0000078, 2.02], 'multivariate-tpe': [0.223, 0.0056, 0.0000078, 2.46] },
      logquad2: {
        tpe: [0.0283, 0.0056, 0.00044, 1.3],
        'multivariate-tpe': [0.0283, 0.0056, 0.00044, 1.57],
        cmaes: [0.0336, 0.0072, 0.00013, 0.47],
      },
    },
    '5': {
      branin: {
        tpe: [0.666, 0.273, 0.0318, 1.29],
        'multivariate-tpe': [0.666, 0.273, 0.0318, 1.66],
        cmaes: [3.01, 0.972, 0.0966, 0.48],
      },
      hartmann6: {
        tpe: [1.3, 0.544, 0.142, 2.21],
        'multivariate-tpe': [1.3, 0.544, 0.142, 2.82],
        cmaes: [1.71, 0.78, 0.251, 0.63],
      },
      rosenbrock4: {
        tpe: [1114, 244, 38.3, 1.67],
        'multivariate-tpe': [1114, 244, 38.3, 1.93],
        cmaes: [1155, 334, 54, 0.56],
      },
      ackley5: {
        tpe: [12.9, 8.13, 5.13, 1.92],
        'multivariate-tpe': [12.9, 8.13, 5.13, 1.84],
        cmaes: [12.9, 10.3, 6.81, 0.65],
      },
      mixed4: { tpe: [0.251, 0.0189, 0.000014, 1.99], 'multivariate-tpe': [0.251, 0.0189, 0.000014, 2.02] },
      logquad2: {
        tpe: [0.0834, 0.0078, 0.001, 1.34],
        'multivariate-tpe': [0.0834, 0.0078, 0.001, 1.31],
        cmaes: [0.0408, 0.0058, 0.00046, 0.66],
      },
    },
  },
};

/**
 * Optuna 5.0 on the untuned problems (problems.ts UNTUNED_PROBLEMS), measured with the anchors'
 * protocol by ./optuna5.py --sampler tpe|cmaes --seeds 20 (Optuna 5.0.0, cmaes 0.13.1, numpy 2.4.6).
 */
const UNTUNED: Record<1 | 5, Rows> = {
  '1': {
    styblinski4: {
      tpe: [43.9, 23.5, 16.2, 2.2],
      cmaes: [58.2, 37.3, 20.4, 0.41],
      'multivariate-tpe': [43.9, 23.5, 16.2, 2.2],
    },
    mixedlog4: {
      tpe: [0.00965, 0.000415, 2.22e-5, 1.7],
      cmaes: [0.059, 0.00759, 0.000569, 0.47],
      'multivariate-tpe': [0.00965, 0.000415, 2.22e-5, 1.7],
    },
  },
  '5': {
    styblinski4: {
      tpe: [43.5, 23.0, 15.8, 1.34],
      cmaes: [54.9, 41.3, 30.4, 0.49],
      'multivariate-tpe': [43.5, 23.0, 15.8, 1.34],
    },
    mixedlog4: {
      tpe: [0.0583, 0.00147, 3.42e-5, 1.62],
      cmaes: [0.103, 0.0135, 0.000269, 0.57],
      'multivariate-tpe': [0.0583, 0.00147, 3.42e-5, 1.62],
    },
  },
};

/**
 * Optuna 5.0's GPSampler (its defaults: Matérn 5/2 ARD, logEI, qLogEI over running trials),
 * measured by ./optuna5.py with the anchors' protocol (Optuna 5.0.0, torch 2.15 run on the CPU, scipy
 * 1.17; 10 seeds, as the 3.1 gp-ei rows), on every problem: the anchors and the untuned two. Its ms
 * were taken on a loaded 2-core machine (load ~12): compare them in scale only.
 */
const GP: Record<1 | 5, Rows> = {
  '1': {
    branin: { gp: [0.0402, 3.55e-5, 1.51e-5, 242.74] },
    hartmann6: { gp: [0.483, 0.00211, 9.86e-5, 196.57] },
    rosenbrock4: { gp: [492, 263, 18.7, 458.74] },
    ackley5: { gp: [10.2, 5.74, 4.28, 189.75] },
    mixed4: { gp: [2.5e-5, 2.71e-7, 2.2e-7, 197.03] },
    logquad2: { gp: [1.47e-5, 1.08e-5, 4.57e-6, 413.26] },
    styblinski4: { gp: [38.8, 27, 8.87, 448.33] },
    mixedlog4: { gp: [0.000139, 9.31e-8, 6.95e-10, 664.97] },
  },
  '5': {
    branin: { gp: [0.161, 8.39e-5, 7.25e-6, 473.14] },
    hartmann6: { gp: [1.75, 0.0528, 1.94e-5, 444.39] },
    rosenbrock4: { gp: [1210, 336, 33.2, 623.53] },
    ackley5: { gp: [12.5, 5.7, 5.05, 138.71] },
    mixed4: { gp: [0.09, 3.66e-7, 7.22e-8, 179.08] },
    logquad2: { gp: [7.44e-6, 1e-6, 2.87e-7, 302.63] },
    styblinski4: { gp: [54.6, 39.5, 14.5, 576.59] },
    mixedlog4: { gp: [0.000164, 1.01e-6, 1.63e-9, 408.12] },
  },
};

/** Which anchor sampler stands for each of our algorithm names (none for hyperband and pbt). */
const FAMILY: Readonly<Record<string, string>> = {
  random: 'random',
  grid: 'grid',
  sobol: 'sobol',
  tpe: 'tpe',
  'multivariate-tpe': 'multivariate-tpe',
  cmaes: 'cmaes',
  bayesianoptimization: 'gp-ei',
};

export function anchorFor(
  release: Release,
  batch: number,
  algorithm: string,
  problem: string,
): AnchorFigures | undefined {
  // Optuna 5.0 has no gp-ei: bayesianoptimization is held to its GPSampler there.
  const gp = release === 'optuna-5.0' && algorithm === 'bayesianoptimization';
  const sampler = gp ? 'gp' : FAMILY[algorithm];
  const known = batch === 1 || batch === 5;
  const table = known ? (gp ? GP[batch] : ANCHORS[release][batch]) : undefined;
  const untuned = release === 'optuna-5.0' && known && !gp ? UNTUNED[batch] : undefined;
  const row =
    sampler === undefined ? undefined : (table?.[problem]?.[sampler] ?? untuned?.[problem]?.[sampler]);
  if (sampler === undefined || row === undefined) return undefined;
  return { sampler, regret: [row[0], row[1], row[2]], msPerSuggestion: row[3] };
}
