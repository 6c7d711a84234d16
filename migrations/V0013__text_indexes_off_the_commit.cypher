// The full-text indexes are updated after commit, not in it: Lucene's work no longer lengthens
// every write (measured side by side: a single remember of a fact by names with its message as
// evidence p50 60.5 → 43.3 ms on a loaded 2-core machine; batches of 250 unchanged).
// Search first waits until every committed write is in them
// (`db.index.fulltext.awaitEventuallyConsistentIndexRefresh`, graph/reads/search.py), and
// forget and restore wait before they return, so no reader and no raw index lookup after them
// can tell the difference. Rebuilding them reads every claim and observation once.
DROP INDEX claim_text IF EXISTS;
DROP INDEX observation_text IF EXISTS;
CREATE FULLTEXT INDEX claim_text IF NOT EXISTS FOR (c:Claim) ON EACH [c.text, c.spaceId]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words', `fulltext.eventually_consistent`: true}};
CREATE FULLTEXT INDEX observation_text IF NOT EXISTS FOR (o:Observation) ON EACH [o.content, o.spaceId]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words', `fulltext.eventually_consistent`: true}};
