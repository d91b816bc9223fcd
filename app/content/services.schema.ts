import { z } from "zod";
import { serviceIcons } from "#app/content/icons.ts";

/** The shape of the services content (services.ts), checked before every build and start (scripts/content-check.ts). */
const text = (min: number) => z.string().trim().min(min);

export const serviceLinesSchema = z
  .array(
    z.strictObject({
      id: z.enum(["it-infrastructure", "it-consulting", "ai-consulting", "ai-development"]),
      cardTitle: text(3),
      title: text(3),
      icon: z.enum(serviceIcons),
      summary: text(20),
      highlights: z.array(text(3)).length(3),
      offerings: z
        .array(
          z.strictObject({
            title: text(3),
            description: text(40),
            features: z.array(text(3)).min(1),
          }),
        )
        .min(1),
    }),
  )
  .length(4);
