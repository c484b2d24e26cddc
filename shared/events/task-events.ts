import { z } from 'zod';

/** Events of a background-task stream. The environment-copy issue fills this in. */
export const taskEventSchemas = [
  z.object({ type: z.literal('TaskPlaceholder'), data: z.object({ id: z.string() }) }),
] as const;
export type TaskEvent = z.infer<(typeof taskEventSchemas)[number]>;
