-- The band of possible spam (ADR 0016): a lead delivered with a visible mark, because the content
-- filter scored it between SPAM_SUSPECT_SCORE and SPAM_HOLD_SCORE (or a signal such as a missing
-- form token from an allowed origin pushed it there). Its verdict is held, suspect or clean.
ALTER TABLE inquiries ADD COLUMN suspect INTEGER NOT NULL DEFAULT 0;
