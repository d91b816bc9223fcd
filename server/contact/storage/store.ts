import type { Database } from "./database.ts";
import { InquiryIntake } from "./intake.ts";
import { OperatorQueries } from "./operator.ts";
import { DeliveryQueue } from "./outbox.ts";

/**
 * The contact pipeline's queries, by job: what a submission writes (`intake`), what the outbox
 * worker claims and marks (`outbox`), and what operators and reports read and change (`operator`).
 */
export class Store {
  readonly db: Database;
  readonly intake: InquiryIntake;
  readonly outbox: DeliveryQueue;
  readonly operator: OperatorQueries;
  constructor(db: Database) {
    this.db = db;
    this.intake = new InquiryIntake(db);
    this.outbox = new DeliveryQueue(db);
    this.operator = new OperatorQueries(db);
  }
}
