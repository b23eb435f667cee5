-- Pin the session's time zone to UTC, so TIMESTAMPTZ values read, print and truncate the same
-- on every machine (rcaeval.store.pin_utc; every connection rcaeval opens or is handed runs it).
SET TimeZone = 'UTC';
