extension API {
    /// Every route: method, template, the scope its key needs (nil: no key), and the handler.
    static let routes: [Route] = [
        Route("GET", "/healthz", scope: nil) { api, _ in api.health() },
        Route("GET", "/readyz", scope: nil) { api, _ in await api.ready() },
        Route("GET", "/metrics", scope: nil) { api, _ in await api.metricsText() },
        Route("GET", "/openapi.json", scope: nil) { _, _ in OpenAPIDocument.response },
        Route("GET", "/console", access: .open, documented: false) { _, _ in Console.redirect },
        Route("GET", "/console/", access: .open, documented: false) { _, _ in Console.file("index.html") },
        Route("GET", "/console/{file}", access: .open, documented: false) { _, request in
            Console.file(request.parameters["file"] ?? "")
        },

        Route("POST", "/v1/notifications", scope: .send) { api, request throws(APIError) in
            try await api.postNotification(request)
        },
        Route("POST", "/v1/notifications/batch", scope: .send, bodyLimit: Route.largeBodyLimit) {
            api, request throws(APIError) in
            try await api.postBatch(request)
        },
        Route("GET", "/v1/notifications/{id}", scope: .read) { api, request throws(APIError) in
            try await api.getNotification(request)
        },
        Route("DELETE", "/v1/notifications/{id}", scope: .send) { api, request throws(APIError) in
            try await api.cancelNotification(request)
        },

        Route("POST", "/v1/campaigns", scope: .admin, bodyLimit: Route.largeBodyLimit) {
            api, request throws(APIError) in
            try await api.postCampaign(request)
        },
        Route("GET", "/v1/campaigns", scope: .read) { api, request throws(APIError) in
            try await api.listCampaigns(request)
        },
        Route("GET", "/v1/campaigns/{id}", scope: .read) { api, request throws(APIError) in
            try await api.getCampaign(request)
        },
        Route("POST", "/v1/campaigns/{id}/cancel", scope: .admin) { api, request throws(APIError) in
            try await api.cancel(request)
        },
        Route("POST", "/v1/campaigns/{id}/retry", scope: .admin) { api, request throws(APIError) in
            try await api.retry(request)
        },
        Route("POST", "/v1/campaigns/{id}/pause", scope: .admin) { api, request throws(APIError) in
            try await api.pause(request, resume: false)
        },
        Route("POST", "/v1/campaigns/{id}/resume", scope: .admin) { api, request throws(APIError) in
            try await api.pause(request, resume: true)
        },

        Route("GET", "/v1/deliveries", scope: .read) { api, request throws(APIError) in
            try await api.listDeliveries(request)
        },
        Route("GET", "/v1/events", scope: .read) { api, request throws(APIError) in try await api.listEvents(request) },
        Route("GET", "/v1/stats", scope: .read) { api, request throws(APIError) in try await api.getStats(request) },
        Route("GET", "/v1/stats/series", scope: .read) { api, request throws(APIError) in
            try await api.getStatsSeries(request)
        },
        Route("GET", "/v1/status", scope: .read) { api, _ in await api.getStatus() },
        Route("GET", "/v1/key", access: .anyKey) { _, request in API.getKey(request) },

        Route("GET", "/v1/devices", scope: .read) { api, request throws(APIError) in try await api.listDevices(request)
        },
        Route("PUT", "/v1/devices/{token}", scope: .send) { api, request throws(APIError) in
            try await api.putDevice(request)
        },
        Route("GET", "/v1/devices/{token}", scope: .read) { api, request throws(APIError) in
            try await api.getDevice(request)
        },
        Route("DELETE", "/v1/devices/{token}", scope: .send) { api, request throws(APIError) in
            try await api.deleteDevice(request)
        },
        Route("DELETE", "/v1/users/{user}/devices", scope: .send) { api, request throws(APIError) in
            try await api.deleteUserDevices(request)
        },

        Route("POST", "/v1/broadcasts", scope: .send) { api, request throws(APIError) in
            try await api.postBroadcast(request)
        },
        Route("POST", "/v1/channels", scope: .admin) { api, request throws(APIError) in
            try await api.postChannel(request)
        },
        Route("GET", "/v1/channels", scope: .read) { api, request throws(APIError) in
            try await api.listChannels(request)
        },
        Route("GET", "/v1/channels/{id}", scope: .read) { api, request throws(APIError) in
            try await api.getChannel(request)
        },
        Route("DELETE", "/v1/channels/{id}", scope: .admin) { api, request throws(APIError) in
            try await api.deleteChannel(request)
        },
    ]
}
