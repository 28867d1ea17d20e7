//! Per-user accumulation: [`UserSlots`] numbers the users of a schedule.

use std::collections::HashMap;

/// Numbers user ids 0, 1, … in order of first appearance, so that per-user state lives
/// in a vector. Small non-negative ids (the archive's are 1..=users) index a vector
/// directly; any other id goes through a hash map.
pub(crate) struct UserSlots {
    /// By user id, when every id is small: its slot, or `u32::MAX` while unseen.
    dense: Vec<u32>,
    sparse: HashMap<i64, u32>,
    count: u32,
}

impl UserSlots {
    /// Slots for the ids in `users` (any id may be asked for later).
    pub(crate) fn for_users(users: &[i64]) -> UserSlots {
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
    pub(crate) fn slot(&mut self, user: i64) -> (usize, bool) {
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
}
