-- The lab service's backlog read: the number of orders still pending.
SELECT count(*) FROM lab_orders WHERE status = 'pending';
