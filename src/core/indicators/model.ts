/** Generation parameters of the SKYSAFE paper (§2.7) for the indicator workflow: temperature 0.2, top-p 0.9. */
export const DEFAULT_SAMPLING = { temperature: 0.2, top_p: 0.9 } as const;
