/*
 * store_scores.c - leaderboards, a learner's scores and the gradebook, read
 * from the best and solved tables the queue maintains (queue.c).
 */
#include "server/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/store/db.h"
#include "server/store/store_impl.h"
#include "common/error.h"
#include "common/banned.h"

int store_leaderboard(struct store *st, const char *problem, const char *gpu, const char *language,
                      bool by_pytorch, void (*fn)(void *arg, const struct store_board_row *r),
                      void *arg, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    int rc = db_prepare(c, &s, cause,
                        "SELECT b.gpu_name, b.language, u.name, b.time_ms, b.score, "
                        "b.submission_id, b.at, b.pytorch_speedup FROM best b "
                        "JOIN users u ON u.id = b.user_id "
                        "WHERE b.problem_id = ? AND (? IS NULL OR b.gpu_name = ?) "
                        "AND (? IS NULL OR b.language = ?) "
                        "ORDER BY b.gpu_name, b.language, "
                        "CASE WHEN ? <> 0 AND b.pytorch_speedup IS NULL THEN 1 ELSE 0 END, "
                        "CASE WHEN ? <> 0 THEN -b.pytorch_speedup ELSE 0 END, b.time_ms, b.at",
                        "tttttII", problem, gpu, gpu, language, language, by_pytorch ? 1 : 0,
                        by_pytorch ? 1 : 0);
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW) {
        struct store_board_row r = {
            .gpu = db_col_text(s, 0),
            .language = db_col_text(s, 1),
            .user = db_col_text(s, 2),
            .time_ms = db_col_double(s, 3),
            .score = db_col_double(s, 4),
            .submission = db_col_i64(s, 5),
            .at = db_col_i64(s, 6),
            .has_pytorch = !db_col_null(s, 7),
            .pytorch_speedup = db_col_double(s, 7),
        };
        fn(arg, &r);
    }
    db_finish(s);
    db_release(st->db, c);
    return rc < 0 ? rc : BW_OK;
}

int store_scores_of(struct store *st, int64_t user,
                    void (*solved)(void *arg, const struct store_solved_row *r),
                    void (*best)(void *arg, const char *problem, const struct store_board_row *r),
                    void *arg, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    int rc = db_prepare(c, &s, cause,
                        "SELECT problem_id, language, first_at FROM solved WHERE user_id = ? "
                        "ORDER BY problem_id, first_at",
                        "i", user);
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW) {
        struct store_solved_row r = {db_col_text(s, 0), db_col_text(s, 1), db_col_i64(s, 2)};
        solved(arg, &r);
    }
    db_finish(s);
    if (rc >= 0)
        rc = db_prepare(c, &s, cause,
                        "SELECT problem_id, gpu_name, language, time_ms, score, submission_id, at, "
                        "pytorch_speedup FROM best WHERE user_id = ?",
                        "i", user);
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW) {
        struct store_board_row r = {
            .gpu = db_col_text(s, 1),
            .language = db_col_text(s, 2),
            .time_ms = db_col_double(s, 3),
            .score = db_col_double(s, 4),
            .submission = db_col_i64(s, 5),
            .at = db_col_i64(s, 6),
            .has_pytorch = !db_col_null(s, 7),
            .pytorch_speedup = db_col_double(s, 7),
        };
        best(arg, db_col_text(s, 0), &r);
    }
    db_finish(s);
    db_release(st->db, c);
    return rc < 0 ? rc : BW_OK;
}

int store_gradebook(struct store *st, void (*fn)(void *arg, const struct store_grade_row *r),
                    void *arg, char **cause)
{
    struct db_conn *c = db_acquire(st->db);
    struct db_stmt *s = NULL;
    /* Every (user, problem, language) with a submission; best over GPUs:
     * highest score, lowest time; first_at is when it was first solved in
     * that language. */
    int rc = db_prepare(c, &s, cause,
                        "SELECT u.name, p.problem_id, "
                        "CASE WHEN sv.first_at IS NULL THEN 0 ELSE 1 END, "
                        "(SELECT MAX(score) FROM best b WHERE b.user_id = p.user_id "
                        " AND b.problem_id = p.problem_id AND b.language = p.language), "
                        "(SELECT MIN(time_ms) FROM best b WHERE b.user_id = p.user_id "
                        " AND b.problem_id = p.problem_id AND b.language = p.language), "
                        "sv.first_at, p.language "
                        "FROM (SELECT DISTINCT user_id, problem_id, language FROM submissions) p "
                        "JOIN users u ON u.id = p.user_id "
                        "LEFT JOIN solved sv ON sv.user_id = p.user_id "
                        "AND sv.problem_id = p.problem_id AND sv.language = p.language "
                        "ORDER BY u.name, p.problem_id, p.language",
                        "");
    while (rc >= 0 && (rc = db_step(s, cause)) == DB_ROW) {
        struct store_grade_row r = {
            .user = db_col_text(s, 0),
            .problem = db_col_text(s, 1),
            .solved = db_col_i64(s, 2) != 0,
            .has_score = !db_col_null(s, 3),
            .score = db_col_double(s, 3),
            .has_time = !db_col_null(s, 4),
            .time_ms = db_col_double(s, 4),
            .first_at = db_col_null(s, 5) ? 0 : db_col_i64(s, 5),
            .language = db_col_text(s, 6),
        };
        fn(arg, &r);
    }
    db_finish(s);
    db_release(st->db, c);
    return rc < 0 ? rc : BW_OK;
}
