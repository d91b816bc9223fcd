-- One word per idea (issue 37): an inquiry held out of the inbox as suspected spam is "held" in the
-- column too, as it is in the code, the CLI's status and verdict, and the page.
ALTER TABLE inquiries RENAME COLUMN spam TO held;
-- A rolling upgrade on PostgreSQL runs instances of the release before beside this one for a while:
-- they still read and write `spam`. It stays, kept equal to `held` both ways by a trigger, until a
-- later release drops both (ADR 0018). Whichever column a statement sets, the other follows.
ALTER TABLE inquiries ADD COLUMN spam BOOLEAN;
UPDATE inquiries SET spam = held;
CREATE FUNCTION inquiries_held_and_spam() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.held := COALESCE(NEW.held, FALSE) OR COALESCE(NEW.spam, FALSE);
  ELSIF NEW.spam IS DISTINCT FROM OLD.spam AND NEW.held IS NOT DISTINCT FROM OLD.held THEN
    NEW.held := COALESCE(NEW.spam, FALSE);
  END IF;
  NEW.spam := NEW.held;
  RETURN NEW;
END $$;
CREATE TRIGGER inquiries_held_and_spam BEFORE INSERT OR UPDATE ON inquiries
  FOR EACH ROW EXECUTE FUNCTION inquiries_held_and_spam();
