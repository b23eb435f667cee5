-- mx_witness / mx_miss: the witnesses and the "nothing holds" details of every registered
-- evidence method (queries/methods/<method>.sql defines mx_w_<method> and mx_miss_<method>),
-- in EVIDENCE_METHODS order, from the list judge/set_list.sql put in j_list_method: a new
-- method needs no edit here.
CREATE OR REPLACE TEMP VIEW mx_witness AS
FROM query_table(list_transform(getvariable('j_list_method'), lambda m: 'mx_w_' || m));

CREATE OR REPLACE TEMP VIEW mx_miss AS
FROM query_table(list_transform(getvariable('j_list_method'), lambda m: 'mx_miss_' || m));
