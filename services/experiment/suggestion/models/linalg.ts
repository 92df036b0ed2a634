// Small dense linear algebra on row-major Float64Arrays: what CMA-ES (a symmetric eigen-
// decomposition) and the Gaussian process (Cholesky factor and triangular solves) need.

/** Eigen-decomposition of a symmetric n×n matrix by cyclic Jacobi rotations: C = V·diag(values)·Vᵀ. */
export function symmetricEigen(
  matrix: Float64Array,
  n: number,
): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 64; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q]! ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q]! - a[p * n + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = a[i * n + i]!;
  return { values, vectors: v };
}

/**
 * Lower Cholesky factor of a symmetric positive-definite n×n matrix, in place of a copy;
 * undefined when a pivot is not positive (the caller adds jitter and retries).
 */
export function cholesky(matrix: Float64Array, n: number): Float64Array | undefined {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = matrix[i * n + j]!;
      const ri = i * n;
      const rj = j * n;
      for (let k = 0; k < j; k++) sum -= l[ri + k]! * l[rj + k]!;
      if (i === j) {
        if (!(sum > 0)) return undefined;
        l[ri + i] = Math.sqrt(sum);
      } else {
        l[ri + j] = sum / l[rj + j]!;
      }
    }
  }
  return l;
}

/** Solves L·x = b for lower-triangular L (n×n), writing into `out`. */
export function solveLower(
  l: Float64Array,
  n: number,
  b: ArrayLike<number>,
  out: Float64Array,
): Float64Array {
  for (let i = 0; i < n; i++) {
    let sum = b[i]!;
    const ri = i * n;
    for (let k = 0; k < i; k++) sum -= l[ri + k]! * out[k]!;
    out[i] = sum / l[ri + i]!;
  }
  return out;
}

/** Solves Lᵀ·x = b for lower-triangular L (n×n), writing into `out`. */
export function solveUpperTransposed(
  l: Float64Array,
  n: number,
  b: ArrayLike<number>,
  out: Float64Array,
): Float64Array {
  for (let i = n - 1; i >= 0; i--) {
    let sum = b[i]!;
    for (let k = i + 1; k < n; k++) sum -= l[k * n + i]! * out[k]!;
    out[i] = sum / l[i * n + i]!;
  }
  return out;
}
