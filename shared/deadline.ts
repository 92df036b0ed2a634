import { unavailable } from './errors.ts';

/**
 * `work`'s outcome, or UNAVAILABLE with `message` once `deadline` (ms since the epoch) has passed.
 * The work itself goes on: stopping it is the caller's.
 */
export async function beforeDeadline<T>(
  work: Promise<T>,
  deadline: number,
  message: () => string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable(message())), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
