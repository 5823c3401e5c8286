import APNs
internal import CCurl
import Threads

/// The loop's libcurl work on transfers: handing over what `AdmissionState` admits, collecting what
/// finished (and doing what `ResendPolicy` says), taking back and failing what is left.
extension ConnectionLoop {
    func admit(now: UInt64) {
        admission.beginRound()
        while let item = admission.next(now: now) {
            let transfer: Transfer
            switch item {
            case .resend(let again):
                again.resetResponse()
                again.writtenAt = 0
                transfer = again
            case .fresh(let submission):
                guard let fresh = idle.popLast() ?? Transfer(configuration: configuration, owner: self) else {
                    admission.notHandedOver()
                    finish(
                        submission.completion,
                        .failure(
                            TransportError(
                                kind: .other, curlCode: 0, message: "curl_easy_init failed", isConnectionFatal: false,
                                isRetryable: true)))
                    continue
                }
                if let error = fresh.configure(submission.request, baseURL: baseURL) {
                    admission.notHandedOver()
                    recycle(fresh)
                    finish(submission.completion, .failure(error))
                    continue
                }
                fresh.completion = submission.completion
                transfer = fresh
            }
            transfer.attempts += 1
            let code = curl_multi_add_handle(multi, transfer.easy)
            guard code == CURLM_OK else {
                admission.notHandedOver()
                let message = String(cString: curl_multi_strerror(code))
                complete(
                    transfer,
                    .failure(
                        TransportError(
                            kind: .other, curlCode: 0, message: "curl_multi_add_handle: \(message)",
                            isConnectionFatal: false, isRetryable: true)))
                continue
            }
            transfer.activeIndex = active.count
            active.append(transfer)
            transfer.onWire = false
            stats.sent += 1
        }
    }

    func collectCompletions() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            let transfer = Transfer.from(easy: easy)
            curl_multi_remove_handle(multi, easy)
            deactivate(transfer)
            if code == CURLE_OK {
                if !admission.proof.isProven {
                    admission.proof.answered(generation: transfer.connectionGeneration)
                    if admission.proof.isProven { stats.opened += 1 }
                }
                stats.completed += 1
                let status = transfer.responseCode()
                let body = ErrorResponse(status: status, body: transfer.responseBody)
                transfer.responseBody = []
                // APNs refuses every later request on a connection that switched tokens too often, the old token
                // included, until the client reconnects: a new connection once this one's streams are done.
                if status == 429, body.reason == .tooManyProviderTokenUpdates {
                    _ = mailbox.withLock { $0.requestReconnect() }
                }
                complete(transfer, .response(status: status, apnsID: transfer.apnsID, body: body))
                continue
            }
            var error = TransportError(curlCode: code, detail: transfer.errorDetail)
            error.requestWasSent = transfer.everSent
            if error.isConnectionFatal { stats.connectionErrors += 1 }
            stats.lastError = error
            switch resendPolicy.afterFailure(
                error, attempts: transfer.attempts, stopping: stopping,
                connectionProven: admission.proof.isProven)
            {
            case .resend:
                stats.retried += 1
                admission.resend(.resend(transfer))
                continue
            case .failWithWaiting:
                stats.connectFailures[ConnectFailureReason(error), default: 0] += 1
                stats.lastConnectFailure = error
                failQueued(error)
            case .fail: break
            }
            stats.failed += 1
            complete(transfer, .failure(error))
        }
    }

    /// Fails with `.withdrawn` the requests of each withdrawal that have not started on the wire, hands their
    /// results back, then tells each withdrawal how many it took.
    func withdrawUnsent(_ withdrawing: [ConnectionMailbox.Withdrawal]) {
        var counts: [Int] = []
        for (groups, _) in withdrawing {
            func matches(_ group: Int64?) -> Bool { groups == nil || group.map { groups!.contains($0) } == true }
            var count = 0
            for item in admission.remove(where: { matches($0.group) }) {
                switch item {
                case .fresh(let submission): finish(submission.completion, .failure(.withdrawn()))
                case .resend(let transfer): complete(transfer, .failure(withdrawnError(transfer)))
                }
                count += 1
            }
            // libcurl holds these but has not started them (no PREREQFUNCTION yet): removing them sends nothing.
            for transfer in active.filter({ !$0.onWire && matches($0.group) }) {
                curl_multi_remove_handle(multi, transfer.easy)
                deactivate(transfer)
                complete(transfer, .failure(withdrawnError(transfer)))
                count += 1
            }
            counts.append(count)
        }
        resumeCompletions()
        for (index, withdrawal) in withdrawing.enumerated() { withdrawal.waiter.resume(returning: counts[index]) }
    }

    /// `.withdrawn` for a transfer; an earlier attempt of it may have been written (then APNs may have seen it).
    private func withdrawnError(_ transfer: Transfer) -> TransportError {
        var error = TransportError.withdrawn()
        error.requestWasSent = transfer.everSent
        return error
    }

    /// Fails every request, in libcurl or waiting, with `error`.
    func failEverything(_ error: TransportError) {
        for transfer in active.reversed() {
            curl_multi_remove_handle(multi, transfer.easy)
            deactivate(transfer)
            stats.failed += 1
            var failure = error
            failure.requestWasSent = transfer.everSent
            complete(transfer, .failure(failure))
        }
        failQueued(error)
        resumeCompletions()
    }

    /// Fails the requests not yet handed to libcurl.
    private func failQueued(_ error: TransportError) {
        var failure = error
        for item in admission.drain() {
            stats.failed += 1
            switch item {
            case .fresh(let submission):
                failure.requestWasSent = false
                finish(submission.completion, .failure(failure))
            case .resend(let transfer):
                failure.requestWasSent = transfer.everSent
                complete(transfer, .failure(failure))
            }
        }
    }

    private func deactivate(_ transfer: Transfer) {
        admission.left(wasUnsent: !transfer.onWire)
        transfer.onWire = true
        let index = transfer.activeIndex
        let last = active.removeLast()
        if index < active.count {
            active[index] = last
            last.activeIndex = index
        }
        transfer.activeIndex = -1
    }

    private func complete(_ transfer: Transfer, _ result: TransportResult) {
        if let completion = transfer.completion {
            transfer.completion = nil
            let written = transfer.writtenAt
            let latency = written == 0 ? nil : Duration.nanoseconds(Int64(MonotonicClock.nanoseconds() &- written))
            completions.append((completion, TransportAnswer(result, latency: latency)))
            finishedSincePublish += 1
        }
        recycle(transfer)
    }

    /// Results are handed back after the libcurl work of this turn, outside any lock.
    func finish(_ completion: @escaping TransportCompletion, _ result: TransportResult) {
        completions.append((completion, TransportAnswer(result)))
        finishedSincePublish += 1
    }

    func resumeCompletions() {
        guard !completions.isEmpty else { return }
        for (completion, answer) in completions { completion(answer) }
        completions.removeAll(keepingCapacity: true)
    }

    private func recycle(_ transfer: Transfer) {
        transfer.resetResponse()
        if idle.count < configuration.maxInFlight { idle.append(transfer) }
    }
}

extension ConnectionLoop: TransferEvents {
    func transferStartsSending(_ transfer: Transfer) {
        transfer.connectionGeneration = admission.proof.generation
        let now = MonotonicClock.nanoseconds()
        if admission.needsSendTimes || sendLog != nil {
            admission.recordSend(at: now)
            sendLog?.append(now)
        }
        guard !transfer.onWire else { return }
        transfer.onWire = true
        transfer.everSent = true
        transfer.writtenAt = now
        admission.startedSending()
    }

    func socketOpened(_ descriptor: Int32) { admission.proof.opened(descriptor) }

    func socketClosing(_ descriptor: Int32) { admission.proof.closing(descriptor) }
}
