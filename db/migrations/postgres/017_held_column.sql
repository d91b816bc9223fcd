-- One word per idea (issue 37): an inquiry held out of the inbox as suspected spam is "held" in the
-- column too, as it is in the code, the CLI's status and verdict, and the page.
ALTER TABLE inquiries RENAME COLUMN spam TO held;
