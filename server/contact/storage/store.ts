import type { Database } from "./database.ts";
import { InquiryIntake } from "./intake.ts";
import { OperatorQueries } from "./operator.ts";
import { DeliveryQueue } from "./outbox.ts";
import { TrainingMarks } from "./training.ts";

/**
 * The contact pipeline's queries, by job: what a submission writes (`intake`), what the outbox
 * worker claims and marks (`outbox`), what operators and reports read and change (`operator`), and the content filter's
 * marks (`training`).
 */
export class Store {
  readonly db: Database;
  readonly intake: InquiryIntake;
  readonly outbox: DeliveryQueue;
  readonly operator: OperatorQueries;
  readonly training: TrainingMarks;
  constructor(db: Database) {
    this.db = db;
    this.intake = new InquiryIntake(db);
    this.outbox = new DeliveryQueue(db);
    this.operator = new OperatorQueries(db);
    this.training = new TrainingMarks(db);
  }
}
