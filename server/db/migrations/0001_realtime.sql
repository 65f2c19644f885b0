-- Live lists: every committed change of a watched table is announced on the channel
-- atelier_changes with its table and id only (well under NOTIFY's payload limit).
CREATE OR REPLACE FUNCTION public.notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  row_id text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    row_id := OLD.id::text;
  ELSE
    row_id := NEW.id::text;
  END IF;
  PERFORM pg_notify('atelier_changes', json_build_object('table', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'id', row_id, 'op', TG_OP)::text);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER users_notify_change AFTER INSERT OR UPDATE OR DELETE ON auth.users
  FOR EACH ROW EXECUTE FUNCTION public.notify_change();
