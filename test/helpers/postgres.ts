/** A throwaway Postgres cluster on loopback (shared with `npm run bench`, which needs one too). */
export { postgresBin, startPostgres, type Postgres } from "../../evals/bench/postgres";
