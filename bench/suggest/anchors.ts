// Optuna 3.1's figures from ../shared/reference/hpo-anchors.md (batch 1, 20 seeds; gp-ei 10):
// median regret at 25/50/100 trials and ms per suggestion. Each of our algorithms is compared
// with the anchor sampler of its family.

export interface AnchorFigures {
  readonly sampler: string;
  readonly regret: readonly [number, number, number];
  readonly msPerSuggestion: number;
}

const rows: Record<string, Record<string, readonly [number, number, number, number]>> = {
  branin: {
    random: [1.46, 0.747, 0.38, 0.16],
    tpe: [0.582, 0.172, 0.0121, 7.55],
    'multivariate-tpe': [0.458, 0.16, 0.0725, 6.88],
    cmaes: [2.41, 0.754, 0.0135, 0.6],
    sobol: [2.07, 0.665, 0.366, 0.39],
    grid: [1.74, 1.55, 0.731, 5.97],
    'gp-ei': [0.0235, 2.9e-4, 1.6e-4, 106.52],
  },
  hartmann6: {
    random: [2.17, 1.55, 1.2, 0.29],
    tpe: [1.39, 0.562, 0.254, 21.75],
    'multivariate-tpe': [0.845, 0.323, 0.188, 17.14],
    cmaes: [1.54, 0.728, 0.275, 0.78],
    sobol: [1.67, 1.49, 1.29, 0.65],
    grid: [2.49, 2.1, 1.59, 11.42],
    'gp-ei': [1.88, 0.0597, 4.6e-3, 103.63],
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
    tpe: [0.243, 0.0479, 4.1e-5, 10.51],
    'multivariate-tpe': [0.175, 1.8e-3, 2.8e-5, 6.24],
    sobol: [0.328, 0.276, 0.232, 0.67],
    grid: [0.444, 0.261, 0.151, 7.38],
    'gp-ei': [0.206, 7.6e-6, 8.5e-7, 135.73],
  },
  logquad2: {
    random: [0.105, 0.0624, 0.0567, 0.09],
    tpe: [0.0224, 7.3e-3, 1.0e-3, 7.19],
    'multivariate-tpe': [0.0161, 8.3e-3, 2.8e-3, 5.99],
    cmaes: [0.0336, 7.2e-3, 1.3e-4, 0.62],
    sobol: [0.115, 0.0797, 0.0281, 0.41],
    grid: [5.03, 4.8, 4.8, 6.03],
    'gp-ei': [1.7e-3, 1.7e-3, 1.7e-3, 106.95],
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

export function anchorFor(algorithm: string, problem: string): AnchorFigures | undefined {
  const sampler = FAMILY[algorithm];
  const row = sampler === undefined ? undefined : rows[problem]?.[sampler];
  if (sampler === undefined || row === undefined) return undefined;
  return { sampler, regret: [row[0], row[1], row[2]], msPerSuggestion: row[3] };
}
