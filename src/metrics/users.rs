//! The users of a workload's jobs, numbered once per run: [`Users`].

use std::collections::HashMap;

/// The users of a sequence of jobs, numbered 0, 1, … in order of first appearance, so
/// that whatever is gathered per user lives in a vector indexed by number: each job's
/// user number, and each user's id. Resolved once per run and shared by what is
/// gathered per user (lateness, the summaries).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Users {
    of_job: Vec<u32>,
    ids: Vec<i64>,
}

impl Users {
    /// The users of jobs whose user ids are `ids`, in job order.
    pub fn of(ids: &[i64]) -> Users {
        let mut slots = UserSlots::for_users(ids);
        let mut users = Users {
            of_job: Vec::with_capacity(ids.len()),
            ..Users::default()
        };
        for &id in ids {
            let (slot, fresh) = slots.slot(id);
            if fresh {
                users.ids.push(id);
            }
            users.of_job.push(slot as u32);
        }
        users
    }

    /// The number of users.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Each job's user number.
    pub(crate) fn of_job(&self) -> &[u32] {
        &self.of_job
    }

    /// Each user's id, by number.
    pub fn ids(&self) -> &[i64] {
        &self.ids
    }
}

/// Numbers user ids 0, 1, … in order of first appearance, so that per-user state lives
/// in a vector. Small non-negative ids (the archive's are 1..=users) index a vector
/// directly; any other id goes through a hash map.
struct UserSlots {
    /// By user id, when every id is small: its slot, or `u32::MAX` while unseen.
    dense: Vec<u32>,
    sparse: HashMap<i64, u32>,
    count: u32,
}

impl UserSlots {
    /// Slots for the ids in `users` (any id may be asked for later).
    fn for_users(users: &[i64]) -> UserSlots {
        // A vector as long as the largest id, unless the ids are sparse.
        let limit = 4 * users.len() as i64 + 1024;
        let dense = users.iter().all(|&u| (0..limit).contains(&u));
        let len = users.iter().max().filter(|_| dense).map_or(0, |&u| u + 1);
        UserSlots {
            dense: vec![u32::MAX; len as usize],
            sparse: HashMap::new(),
            count: 0,
        }
    }

    /// The slot of `user`, and whether this is its first appearance.
    #[inline]
    fn slot(&mut self, user: i64) -> (usize, bool) {
        let next = self.count;
        let slot = match usize::try_from(user)
            .ok()
            .and_then(|u| self.dense.get_mut(u))
        {
            Some(s) => s,
            None => Self::sparse_slot(&mut self.sparse, user),
        };
        let fresh = *slot == u32::MAX;
        if fresh {
            *slot = next;
            self.count += 1;
        }
        (*slot as usize, fresh)
    }

    #[cold]
    fn sparse_slot(sparse: &mut HashMap<i64, u32>, user: i64) -> &mut u32 {
        sparse.entry(user).or_insert(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slots follow first appearance, whether ids are small or not.
    #[test]
    fn slots_by_first_appearance() {
        for users in [[3, 1, 3, 0, 1], [-7, i64::MAX, -7, 5, i64::MAX]] {
            let mut slots = UserSlots::for_users(&users);
            let got: Vec<(usize, bool)> = users.iter().map(|&u| slots.slot(u)).collect();
            assert_eq!(
                got,
                [(0, true), (1, true), (0, false), (2, true), (1, false)]
            );
        }
        // An id outside the vector asked for later still gets a slot.
        let mut slots = UserSlots::for_users(&[1, 2]);
        assert_eq!(slots.slot(1), (0, true));
        assert_eq!(slots.slot(1 << 40), (1, true));
        assert_eq!(slots.slot(1 << 40), (1, false));
    }

    /// Numbers and ids follow the jobs.
    #[test]
    fn users_of_jobs() {
        let users = Users::of(&[7, -2, 7, 7, 1 << 40, -2]);
        assert_eq!(users.of_job(), [0, 1, 0, 0, 2, 1]);
        assert_eq!(users.ids(), [7, -2, 1 << 40]);
        assert_eq!((users.len(), Users::of(&[]).is_empty()), (3, true));
    }
}
