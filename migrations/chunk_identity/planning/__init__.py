"""Planning of the chunk-identity rewrite: where a chunk-producing expression is sent
(`sites`), where its upsert goes (`planner`, `hoisting`), whether the IDs the upsert
copies still hold there (`stability`), generators that now also yield upserts
(`generators`), building the upsert (`upserts`), chunks returned from helpers and their
calls (`helper_calls`, `helper_sources`), one chunk's planned edits (`placement`) and the
edits of a module and how they are applied (`plan`)."""
